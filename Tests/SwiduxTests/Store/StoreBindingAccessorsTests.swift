import Foundation
import Testing
@testable import Swidux

/// The closures behind `store.binding(_:send:)` (SwiftUI is not on Linux; the closures are
/// compiled and run here): the getter reads the state, the setter sends.
@MainActor
@Suite("Store binding accessors")
struct StoreBindingAccessorsTests {
    struct Form: Equatable {
        var title = ""
        var count = 0
    }

    enum FormAction: Equatable, Sendable {
        case setTitle(String)
    }

    static let reducer = Reduce<Form, FormAction, Void> { state, action, _ in
        switch action {
        case .setTitle(let title):
            state.title = title
            state.count += 1
        }
        return nil
    }

    @Test func theGetterReadsAndTheSetterSends() {
        let store = Store(initialState: Form(), reducer: Self.reducer, environment: ())
        let accessors = StoreBindingAccessors(store: store, keyPath: \.title, send: FormAction.setTitle)
        #expect(accessors.get() == "")
        accessors.set("Milk")
        #expect(store.title == "Milk")
        #expect(store.count == 1)             // through the reducer: one action sent
        #expect(accessors.get() == "Milk")
        accessors.set("Milk")                 // a binding write always sends
        #expect(store.count == 2)
    }

    @Test func theClosuresAreSendableAndNonisolated() async {
        let store = Store(initialState: Form(), reducer: Self.reducer, environment: ())
        let accessors = StoreBindingAccessors(store: store, keyPath: \.title, send: { .setTitle($0.uppercased()) })
        // Stored as plain `@Sendable` functions: they convert to any isolation Binding asks for.
        let get: @Sendable () -> String = accessors.get
        let set: @Sendable (String) -> Void = accessors.set
        set("eggs")
        #expect(get() == "EGGS")
    }

    /// Since iOS 18 SwiftUI may call a binding's closures off the main thread (issue 30):
    /// the getter answers the value last read on the main actor and the setter sends on the
    /// main actor, in order, instead of trapping in `MainActor.assumeIsolated`.
    @Test(.timeLimit(.minutes(1))) func theClosuresAreSafeOffTheMainThread() async {
        let store = Store(initialState: Form(title: "Milk"), reducer: Self.reducer, environment: ())
        let accessors = StoreBindingAccessors(store: store, keyPath: \.title, send: FormAction.setTitle)
        let offMain = await Task.detached { (Thread.isMainThread, accessors.get()) }.value
        #expect(offMain.0 == false)
        #expect(offMain.1 == "Milk")

        await Task.detached {
            accessors.set("Eggs")
            accessors.set("Bread")
        }.value
        while store.count < 2 { await Task.yield() }   // the sends reach the main actor
        #expect(store.title == "Bread")                // in the order of the writes
        #expect(await Task.detached { accessors.get() }.value == "Bread")
    }
}
