import Foundation
import Observation
import Testing
import Swidux

// Seed 002 written by hand, as an app would: typealiases, a feature reducer with its own
// action type, a hand-written @Observable AppStore conforming to SwiduxDispatcher whose
// send returns nothing, PersistenceMiddleware driven with afterReduce(state:).

enum SeedAppAction: Sendable { case items(SeedItemAction) }
enum SeedItemAction: Sendable { case create(String), rename(UUID, String), delete(UUID) }

typealias SeedEffect = Swidux.Effect<SeedAppAction>
typealias SeedSend = Swidux.Send<SeedAppAction>

struct SeedCard: Identifiable, Equatable, Sendable { let id: UUID; var name: String }

struct SeedAppState: Sendable, Equatable {
    var items = EntityStore<SeedCard>()
    var ui = 0
}

struct SeedItemReducer: SwiduxReducer {
    func reduce(state: inout SeedAppState, action: SeedItemAction, environment: Void) -> SeedEffect? {
        switch action {
        case .create(let name):
            let item = SeedCard(id: UUID(), name: name)
            state.items[item.id] = item
        case .rename(let id, let name):
            state.items.modify(id) { $0.name = name }
        case .delete(let id):
            state.items[id] = nil
        }
        return nil
    }
}

struct SeedAppReducer: SwiduxReducer {
    func reduce(state: inout SeedAppState, action: SeedAppAction, environment: Void) -> SeedEffect? {
        switch action {
        case .items(let action): return SeedItemReducer().reduce(state: &state, action: action, environment: ())
        }
    }
}

@MainActor
@Observable
final class SeedAppStore: SwiduxDispatcher {
    private(set) var items = EntityStore<SeedCard>()
    private(set) var ui = 0
    @ObservationIgnored let persistence: PersistenceMiddleware<SeedAppState>

    init(persistence: PersistenceMiddleware<SeedAppState>) { self.persistence = persistence }

    func send(_ action: SeedAppAction) {
        var state = SeedAppState(items: items, ui: ui)
        _ = SeedAppReducer().reduce(state: &state, action: action, environment: ())
        persistence.afterReduce(state: &state)
        if items != state.items { items = state.items }   // rule 9
        if ui != state.ui { ui = state.ui }
    }
}

@MainActor
@Suite("Seed 002: a hand-written AppStore", .timeLimit(.minutes(1)))
struct SeedAppStoreTests {
    @Test func handWrittenStoreConformsAndPersistsThroughAfterReduce() async throws {
        let saved = Recorder<String>()
        let persistence = PersistenceMiddleware<SeedAppState>(
            writers: [
                StateWriter(keyPath: \.items) { writes, deletes in
                    for item in writes { saved.append("upsert \(item.name)") }
                    for _ in deletes { saved.append("delete") }
                },
            ],
            debounce: .milliseconds(250)
        )
        let store = SeedAppStore(persistence: persistence)
        let dispatcher: any SwiduxDispatcher<SeedAppAction> = store
        dispatcher.send(.items(.create("Milk")))
        let id = try #require(store.items.values.first?.id)
        store.send(.items(.rename(id, "Oat milk")))
        try await persistence.flush()
        #expect(saved.values == ["upsert Oat milk"])
        store.send(.items(.delete(id)))
        try await persistence.flush()
        #expect(saved.values == ["upsert Oat milk", "delete"])
        #expect(store.items.isEmpty)
    }

    @Test func genericStoreIsADispatcherReturningATask() async {
        let store = Store(initialState: SeedAppState(), reducer: SeedAppReducer(), environment: ())
        func dispatch<D: SwiduxDispatcher>(_ d: D, _ a: D.Action) -> D.SendResult { d.send(a) }
        let task: StoreTask = dispatch(store, .items(.create("Tea")))
        await task.finish()
        #expect(store.items.values.map(\.name) == ["Tea"])
    }
}
