import Foundation
import Testing
@testable import Swidux

// Seed 004: Intent/State/Effect feature with derived filtered state and a navigate event
// outside state (the seed's effectPublisher).

struct User: Identifiable, Equatable, Sendable { let id: UUID; var name: String }

struct UserState: Equatable {
    var users: [User] = []
    var searchQuery = ""
    var isLoading = false
    var filteredUsers: [User] {
        guard !searchQuery.isEmpty else { return users }
        return users.filter { $0.name.contains(searchQuery) }
    }
}

enum UserIntent: Sendable { case loadUsers, usersLoaded([User]), selectUser(UUID), search(String) }
enum UserEffect: Equatable, Sendable { case navigate(UUID) }

struct UserEnvironment: Sendable {
    var fetchUsers: @Sendable () async -> [User]
    var effects = EventChannel<UserEffect>()
}

struct UserReducer: SwiduxReducer {
    func reduce(state: inout UserState, action: UserIntent, environment: UserEnvironment) -> Effect<UserIntent>? {
        switch action {
        case .loadUsers:
            state.isLoading = true
            return .run { .usersLoaded(await environment.fetchUsers()) }
        case .usersLoaded(let users):
            state.users = users
            state.isLoading = false
            return nil
        case .selectUser(let id):
            return .emit(.navigate(id), on: environment.effects)
        case .search(let query):
            state.searchQuery = query
            return nil
        }
    }
}

@MainActor
@Suite("Seed 004: user search", .timeLimit(.minutes(1)))
struct Seed004UserSearchTests {
    let users = [User(id: UUID(), name: "Ada"), User(id: UUID(), name: "Grace"), User(id: UUID(), name: "Adele")]

    @Test func loadThenSearchFilters() async {
        let users = users
        let store = Store(initialState: UserState(), reducer: UserReducer(), environment: UserEnvironment(fetchUsers: { users }))
        await store.send(.loadUsers).finish()
        #expect(store.filteredUsers == users)
        store.send(.search("Ad"))
        #expect(store.filteredUsers.map(\.name) == ["Ada", "Adele"])
        store.send(.search(""))
        #expect(store.filteredUsers.count == 3)
    }

    @Test func selectingAUserNavigatesOnceWithoutTouchingState() async {
        let environment = UserEnvironment(fetchUsers: { [] })
        let store = Store(initialState: UserState(users: users), reducer: UserReducer(), environment: environment)
        var navigation = environment.effects.events.makeAsyncIterator()
        let before = store.state
        await store.send(.selectUser(users[1].id)).finish()
        #expect(await navigation.next() == .navigate(users[1].id))
        #expect(store.state == before)
    }
}
