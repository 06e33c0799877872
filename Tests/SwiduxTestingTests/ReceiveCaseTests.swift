import SwiduxTesting
import Testing

// An action that is not Equatable: a closure and an `any Error` payload.
private struct Offline: Error {}

private enum LoadAction: Sendable {
    case load
    case loaded([String])
    case failed(any Error)
    case renamed(String)
    case callback(@Sendable () -> Void)
    case named(name: String)
}

private struct LoadState: Equatable {
    var items: [String] = []
    var failed = false
    var title = ""
}

private struct LoadReducer: SwiduxReducer {
    let outcome: LoadAction
    func reduce(state: inout LoadState, action: LoadAction, environment: Void) -> Effect<LoadAction>? {
        switch action {
        case .load:
            let outcome = outcome
            return .run { send in await send(outcome) }
        case .loaded(let items): state.items = items
        case .failed: state.failed = true
        case .renamed(let title): state.title = title
        case .callback: break
        case .named(let name): state.title = name
        }
        return nil
    }
}

/// `receive(Action.someCase)`: receive by case, for actions that are not Equatable.
@MainActor
@Suite struct ReceiveCaseTests {
    @Test func receivesACaseByItsConstructor() async {
        let store = TestStore(initialState: LoadState(), reducer: LoadReducer(outcome: .failed(Offline())), environment: ())
        await store.send(.load)
        await store.receive(LoadAction.failed) { $0.failed = true }
        await store.finish()
    }

    @Test func receivesACaseAndChecksItsPayload() async {
        let store = TestStore(initialState: LoadState(), reducer: LoadReducer(outcome: .loaded(["Milk"])), environment: ())
        await store.send(.load)
        await store.receive(LoadAction.loaded, ["Milk"]) { $0.items = ["Milk"] }
        await store.finish()
    }

    @Test func anotherCaseWithTheSamePayloadTypeDoesNotMatch() async {
        let store = TestStore(initialState: LoadState(), reducer: LoadReducer(outcome: .renamed("x")), environment: ())
        await store.send(.load)
        await withKnownIssue {
            await store.receive(LoadAction.loaded)
        } matching: { issue in
            issue.description.contains("is not the expected case")
        }
        await store.finish()
    }

    @Test func aCaseOfTheSamePayloadTypeIsToldApartByItsLabel() async {
        // `renamed` and a would-be `loaded` both carry one value: the label decides.
        let store = TestStore(initialState: LoadState(), reducer: LoadReducer(outcome: .renamed("Shop")), environment: ())
        await store.send(.load)
        await store.receive(LoadAction.renamed, "Shop") { $0.title = "Shop" }
        await store.finish()
    }

    @Test func aDifferentPayloadFailsWithADiff() async {
        let store = TestStore(initialState: LoadState(), reducer: LoadReducer(outcome: .loaded(["Eggs"])), environment: ())
        await store.send(.load)
        await withKnownIssue {
            await store.receive(LoadAction.loaded, ["Milk"]) { $0.items = ["Eggs"] }
        } matching: { issue in
            issue.description.contains("carries a different value")
        }
        await store.finish()
    }

    @Test func aClosurePayloadIsMatchedByCase() async {
        let store = TestStore(initialState: LoadState(), reducer: LoadReducer(outcome: .callback({})), environment: ())
        await store.send(.load)
        await store.receive(LoadAction.callback)
        await store.finish()
    }

    @Test func aLabelledPayloadIsMatched() async {
        let store = TestStore(initialState: LoadState(), reducer: LoadReducer(outcome: .named(name: "Shop")), environment: ())
        await store.send(.load)
        await store.receive(LoadAction.named, "Shop") { $0.title = "Shop" }
        await store.finish()
    }
}
