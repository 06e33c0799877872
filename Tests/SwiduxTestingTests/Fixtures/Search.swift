import Foundation
import SwiduxTesting

// Search as you type: each keystroke restarts a debounce window on the injected clock.

struct SearchState: Equatable {
    var query = ""
    var results: [String] = []
}

enum SearchAction: Equatable {
    case queryChanged(String)
    case response([String])
}

struct SearchEnvironment {
    var clock: any Clock<Duration>
    var search: @Sendable (String) async throws -> [String]
}

struct SearchID: Hashable, Sendable {}

struct SearchReducer: SwiduxReducer {
    func reduce(state: inout SearchState, action: SearchAction, environment: SearchEnvironment) -> Effect<SearchAction>? {
        switch action {
        case .queryChanged(let query):
            state.query = query
            guard !query.isEmpty else {
                state.results = []
                return .cancel(id: SearchID())
            }
            let search = environment.search
            return Effect.run { send in
                await send(.response(try await search(query)))
            }
            .debounce(id: SearchID(), for: .milliseconds(300), clock: environment.clock)
        case .response(let results):
            state.results = results
            return nil
        }
    }
}

/// Records the queries it was asked, answers `"<query>!"`.
final class SearchSpy: @unchecked Sendable {
    private let lock = LockedValue(())
    private var _queries: [String] = []

    var queries: [String] {
        lock.withLock { _ in _queries }
    }

    func search(_ query: String) async throws -> [String] {
        record(query)
        return ["\(query)!"]
    }

    private func record(_ query: String) {
        lock.withLock { _ in _queries.append(query) }
    }
}
