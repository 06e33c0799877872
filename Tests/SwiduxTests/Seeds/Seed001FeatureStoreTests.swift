import Testing
@testable import Swidux

// Seed 001: a feature store with use-case injection, derived state, error clearing —
// on the generic Store with a SwiduxReducer.

struct FeatureItem: Identifiable, Equatable, Sendable { let id: String; var name: String }

struct FeatureUiState: Equatable {
    var items: [FeatureItem] = []
    var selectedItem: FeatureItem?
    var isLoading = false
    var error: String?
    var hasItems: Bool { !items.isEmpty }
    var showError: Bool { error != nil }
}

enum FeatureIntent: Sendable {
    case loadItems, loadItemsSuccess([FeatureItem]), loadItemsFailure(String)
    case selectItem(FeatureItem), deleteItem(id: String), clearError
}

struct FeatureUseCases: Sendable {
    var getItems: @Sendable () async throws -> [FeatureItem]
    var deleteItem: @Sendable (String) async throws -> Void
}

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

@MainActor
@Suite("Seed 001: feature store", .timeLimit(.minutes(1)))
struct Seed001FeatureStoreTests {
    let items = [FeatureItem(id: "a", name: "A"), FeatureItem(id: "b", name: "B")]

    @Test func loadSuccessFillsItemsAndDerivedState() async {
        let items = items
        let store = Store(initialState: FeatureUiState(), reducer: FeatureReducer(),
                          environment: FeatureUseCases(getItems: { items }, deleteItem: { _ in }))
        #expect(!store.hasItems)
        let task = store.send(.loadItems)
        #expect(store.isLoading)
        await task.finish()
        #expect(store.items == items)
        #expect(store.hasItems)
        #expect(!store.isLoading)
    }

    @Test func loadFailureShowsAndClearsError() async {
        let store = Store(initialState: FeatureUiState(), reducer: FeatureReducer(),
                          environment: FeatureUseCases(getItems: { throw TestError(message: "no network") }, deleteItem: { _ in }))
        await store.send(.loadItems).finish()
        #expect(store.error == "no network")
        #expect(store.showError)
        store.send(.clearError)
        #expect(!store.showError)
    }

    @Test func selectThenDeleteClearsSelectionAndCallsUseCase() async {
        let deleted = Recorder<String>()
        let store = Store(initialState: FeatureUiState(items: items), reducer: FeatureReducer(),
                          environment: FeatureUseCases(getItems: { [] }, deleteItem: { deleted.append($0) }))
        store.send(.selectItem(items[0]))
        #expect(store.selectedItem == items[0])
        await store.send(.deleteItem(id: "a")).finish()
        #expect(store.items == [items[1]])
        #expect(store.selectedItem == nil)
        #expect(deleted.values == ["a"])
    }
}
