import Foundation
import SwiduxTesting
import Testing

// Seeds 001 and 004 rewritten with TestStore: every state change and every effect output
// is asserted, and the test fails if anything is left running or unasserted.

struct SeedItem: Identifiable, Equatable, Sendable { let id: String; var name: String }

struct FeatureUiState: Equatable {
    var items: [SeedItem] = []
    var selectedItem: SeedItem?
    var isLoading = false
    var error: String?
    var hasItems: Bool { !items.isEmpty }
}

enum FeatureIntent: Equatable, Sendable {
    case loadItems, loadItemsSuccess([SeedItem]), loadItemsFailure(String)
    case selectItem(SeedItem), deleteItem(id: String), clearError
}

struct FeatureUseCases: Sendable {
    var getItems: @Sendable () async throws -> [SeedItem]
    var deleteItem: @Sendable (String) async throws -> Void
}

struct SeedFailure: Error, CustomStringConvertible { var description: String { "no network" } }

struct FeatureReducer: SwiduxReducer {
    func reduce(state: inout FeatureUiState, action: FeatureIntent, environment: FeatureUseCases) -> Effect<FeatureIntent>? {
        switch action {
        case .loadItems:
            state.isLoading = true
            state.error = nil
            return .run { send in
                do { await send(.loadItemsSuccess(try await environment.getItems())) }
                catch { await send(.loadItemsFailure("\(error)")) }
            }
        case .loadItemsSuccess(let items):
            state.items = items
            state.isLoading = false
        case .loadItemsFailure(let error):
            state.error = error
            state.isLoading = false
        case .selectItem(let item):
            state.selectedItem = item
        case .deleteItem(let id):
            state.items.removeAll { $0.id == id }
            if state.selectedItem?.id == id { state.selectedItem = nil }
            return .run { _ in try await environment.deleteItem(id) }
        case .clearError:
            state.error = nil
        }
        return nil
    }
}

struct SeedUser: Identifiable, Equatable, Sendable { let id: Int; var name: String }

struct UserState: Equatable {
    var users: [SeedUser] = []
    var searchQuery = ""
    var isLoading = false
    var filteredUsers: [SeedUser] {
        guard !searchQuery.isEmpty else { return users }
        return users.filter { $0.name.contains(searchQuery) }
    }
}

enum UserIntent: Equatable, Sendable { case loadUsers, usersLoaded([SeedUser]), selectUser(Int), search(String) }
enum UserEffect: Equatable, Sendable { case navigate(Int) }

struct UserEnvironment: Sendable {
    var fetchUsers: @Sendable () async -> [SeedUser]
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
        case .selectUser(let id):
            return .emit(.navigate(id), on: environment.effects)
        case .search(let query):
            state.searchQuery = query
        }
        return nil
    }
}

@MainActor
@Suite("Seed ports with TestStore", .timeLimit(.minutes(1)))
struct SeedPortTests {
    let items = [SeedItem(id: "a", name: "A"), SeedItem(id: "b", name: "B")]
    let users = [SeedUser(id: 1, name: "Ada"), SeedUser(id: 2, name: "Grace"), SeedUser(id: 3, name: "Adele")]

    @Test func seed001LoadSelectDelete() async {
        let items = items
        let deleted = LockedList()
        let store = TestStore(initialState: FeatureUiState(), reducer: FeatureReducer(),
                              environment: FeatureUseCases(getItems: { items }, deleteItem: { deleted.append($0) }))
        await store.send(.loadItems) { $0.isLoading = true }
        await store.receive(.loadItemsSuccess(items)) {
            $0.items = items
            $0.isLoading = false
        }
        #expect(store.state.hasItems)
        await store.send(.selectItem(items[0])) { $0.selectedItem = items[0] }
        await store.send(.deleteItem(id: "a")) {
            $0.items = [items[1]]
            $0.selectedItem = nil
        }
        await store.finish()
        #expect(deleted.values == ["a"])
    }

    @Test func seed001FailureThenClearError() async {
        let store = TestStore(initialState: FeatureUiState(), reducer: FeatureReducer(),
                              environment: FeatureUseCases(getItems: { throw SeedFailure() }, deleteItem: { _ in }))
        await store.send(.loadItems) { $0.isLoading = true }
        await store.receive(.loadItemsFailure("no network")) {
            $0.isLoading = false
            $0.error = "no network"
        }
        await store.send(.clearError) { $0.error = nil }
        await store.finish()
    }

    @Test func seed004LoadSearchAndNavigate() async {
        let users = users
        let environment = UserEnvironment(fetchUsers: { users })
        let store = TestStore(initialState: UserState(), reducer: UserReducer(), environment: environment)
        var navigation = environment.effects.events.makeAsyncIterator()
        await store.send(.loadUsers) { $0.isLoading = true }
        await store.receive(.usersLoaded(users)) {
            $0.users = users
            $0.isLoading = false
        }
        await store.send(.search("Ad")) { $0.searchQuery = "Ad" }
        #expect(store.state.filteredUsers.map(\.name) == ["Ada", "Adele"])
        await store.send(.selectUser(2))          // navigation is an event, not a state change
        await store.finish()
        #expect(await navigation.next() == .navigate(2))
    }
}

final class LockedList: @unchecked Sendable {
    private let lock = LockedValue(())
    private var stored: [String] = []
    func append(_ value: String) { lock.withLock { _ in stored.append(value) } }
    var values: [String] { lock.withLock { _ in stored } }
}
