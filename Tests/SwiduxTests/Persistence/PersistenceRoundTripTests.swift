import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

typealias SeededGenerator = SeededRandomNumberGenerator

enum RoundTripAction: Sendable {
    case insert(Int, String), modify(Int, String), delete(Int), sortByText, removeShort
    case move(from: Int, to: Int), deleteAndReinsert(Int), removeAll, undo
}

struct RoundTripReducer: SwiduxReducer {
    func reduce(state: inout NotesState, action: RoundTripAction, environment: Void) -> Effect<RoundTripAction>? {
        switch action {
        case .insert(let id, let text): state.notes[id] = Note(id: id, text: text, tagID: nil)
        case .modify(let id, let text): state.notes.modify(id) { $0.text = text }
        case .delete(let id): state.notes[id] = nil
        case .sortByText: state.notes.sort { ($0.text, $0.id) < ($1.text, $1.id) }
        case .removeShort: state.notes.removeAll { $0.text.count < 2 }
        case .move(let from, let to):
            guard from < state.notes.count, to <= state.notes.count else { return nil }
            state.notes.move(fromOffsets: IndexSet(integer: from), toOffset: to)
        case .deleteAndReinsert(let id):
            if let note = state.notes[id] { state.notes[id] = nil; state.notes[id] = note }
        case .removeAll: state.notes.removeAll()
        case .undo: break
        }
        return nil
    }
}

@MainActor
@Suite("Persistence round trip", .timeLimit(.minutes(1)))
struct PersistenceRoundTripTests {
    static let steps = Int(ProcessInfo.processInfo.environment["SWIDUX_ROUNDTRIP_STEPS"] ?? "") ?? 1500

    @Test(arguments: [1 as UInt64, 2, 3, 42])
    func randomActionsPersistToAnEqualState(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let table = MemoryTable<Note>()
        let persistence = PersistenceMiddleware<NotesState>(writers: [table.writer(\.notes)])
        let store = Store(initialState: NotesState(), reducer: RoundTripReducer(), environment: (),
                          persistence: persistence, undo: UndoMiddleware(maxDepth: 20, recording: \.tags, \.notes))
        func text() -> String { String(repeating: "x", count: Int.random(in: 1...4, using: &rng)) + "\(Int.random(in: 0..<9, using: &rng))" }
        for step in 0..<Self.steps {
            let id = Int.random(in: 0..<60, using: &rng)
            let count = store.notes.count
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<30: store.send(.insert(id, text()))
            case 30..<50: store.send(.modify(id, text()))
            case 50..<65: store.send(.delete(id))
            case 65..<70: store.send(.sortByText)
            case 70..<73: store.send(.removeShort)
            case 73..<80: store.send(.move(from: Int.random(in: 0...max(0, count - 1), using: &rng),
                                           to: Int.random(in: 0...count, using: &rng)))
            case 80..<84: store.send(.deleteAndReinsert(id))
            case 84: store.send(.removeAll)
            case 85..<93: store.undo()
            default: store.redo()
            }
            if Int.random(in: 0..<20, using: &rng) == 0 { try await store.flush() }
            if step % 250 == 0 {
                try await store.flush()
                #expect(table.stored == store.notes.values, "seed \(seed), step \(step)")
            }
        }
        try await store.flush()
        // Rebuild the state from the backend: equal to the live state, order included.
        let rebuilt = EntityStore(table.stored)
        #expect(rebuilt == store.notes, "seed \(seed)")
        #expect(rebuilt.ids == store.notes.ids, "seed \(seed)")
    }
}
