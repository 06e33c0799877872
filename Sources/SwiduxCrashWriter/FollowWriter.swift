import Foundation
import SwiduxSQLite

/// The `follow-writer` mode: a store that follows the database while it edits it.
struct FollowState: Sendable {
    var a = EntityStore<CrashRow>()
}

enum FollowAction: Sendable {
    case put(Int, String)
    case delete(Int)
}

struct FollowReducer: SwiduxReducer {
    func reduce(state: inout FollowState, action: FollowAction, environment: Void) -> Effect<FollowAction>? {
        switch action {
        case .put(let id, let payload):
            if state.a[id] != nil {
                state.a.modify(id) { $0.payload = payload }
            } else {
                state.a[id] = CrashRow(id: id, flush: 0, payload: payload)
            }
        case .delete(let id):
            state.a[id] = nil
        }
        return nil
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@MainActor
enum FollowWriter {
    static func run(path: String, seed: UInt64, steps: Int, done: String, otherDone: String, dump: String) async throws {
        var rng = SplitMix(state: seed)
        let database = try SwiduxDatabase(path: path, migrations: migrations)
        let persistence = PersistenceMiddleware<FollowState>(
            writers: [database.stateWriter(for: \.a, table: tableA)],
            debounce: .milliseconds(Int.random(in: 2...40, using: &rng)))
        var state = FollowState()
        state.a = try await database.hydrate(tableA)
        let store = Store(initialState: state, reducer: FollowReducer(), environment: (), persistence: persistence)
        try store.follow(database, every: .milliseconds(10))
        let me = getpid()
        for step in 0..<steps {
            let id = Int.random(in: 0..<20, using: &rng)
            if Int.random(in: 0..<4, using: &rng) == 0 {
                store.send(.delete(id))
            } else {
                store.send(.put(id, "\(me)-\(step)"))
            }
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: try await store.flush()
            case 1...4: try await Task.sleep(for: .milliseconds(Int.random(in: 0...8, using: &rng)))
            default: await Task.yield()
            }
        }
        try await store.flush()
        _ = FileManager.default.createFile(atPath: done, contents: nil)
        let start = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: otherDone), ContinuousClock.now - start < .seconds(60) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let settle = ContinuousClock.now
        while ContinuousClock.now - settle < .seconds(20) {
            let file = try await database.hydrate(tableA)
            if file.values == store.state.a.values { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let data = try JSONEncoder().encode(store.state.a.values)
        try data.write(to: URL(fileURLWithPath: dump))
        try database.close()
    }
}
