import Observation
import Testing
@testable import Swidux

struct ObservedItem: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
}

struct SliceState: Equatable {
    var a = 0
    var b = 0
    var items = EntityStore<ObservedItem>()
    var nested = Nested()
    struct Nested: Equatable { var flag = false; var inner = EntityStore<ObservedItem>() }
}

enum SliceAction: Sendable {
    case setA(Int), setB(Int), noop, rename(Int, String), insert(Int), setFlag(Bool)
}

@MainActor let sliceReducer = Reduce<SliceState, SliceAction, Void> { state, action, _ in
    switch action {
    case .setA(let v): state.a = v
    case .setB(let v): state.b = v
    case .noop: break
    case .rename(let id, let title): state.items.modify(id) { $0.title = title }
    case .insert(let id): state.items[id] = ObservedItem(id: id, title: "\(id)")
    case .setFlag(let flag): state.nested.flag = flag
    }
    return nil
}

/// Counts how many times the observation registered by `read` fires, re-arming after each.
@MainActor
final class ChangeCounter {
    var count = 0
    private let read: @MainActor () -> Void
    init(_ read: @escaping @MainActor () -> Void) { self.read = read; arm() }
    private func arm() {
        withObservationTracking { read() } onChange: { [weak self] in
            MainActor.assumeIsolated {
                self?.count += 1
                self?.arm()
            }
        }
    }
}

@MainActor
@Suite("Store observation", .timeLimit(.minutes(1)))
struct StoreObservationTests {
    @Test func readerOfOneSliceIsNotNotifiedOfAnotherSlice() {
        let store = Store(initialState: SliceState(), reducer: sliceReducer, environment: ())
        let readsA = ChangeCounter { _ = store.a }
        store.send(.setB(1))
        #expect(readsA.count == 0)
        store.send(.setA(1))
        #expect(readsA.count == 1)
    }

    @Test func actionThatChangesNothingNotifiesNothing() {
        let store = Store(initialState: SliceState(), reducer: sliceReducer, environment: ())
        let readsA = ChangeCounter { _ = store.a }
        let readsItems = ChangeCounter { _ = store.items.entityStore }
        let readsAll = ChangeCounter { _ = store.state }
        store.send(.noop)
        store.send(.setA(0))                 // same value
        store.send(.rename(42, "missing"))   // no such entity
        #expect(readsA.count == 0)
        #expect(readsItems.count == 0)
        #expect(readsAll.count == 0)
    }

    @Test func entityStoreSliceIsObservedByFingerprint() throws {
        let store = Store(initialState: SliceState(), reducer: sliceReducer, environment: ())
        let readsItems = ChangeCounter { _ = store.items.values }
        store.send(.insert(1))
        #expect(readsItems.count == 1)
        store.send(.rename(1, "1"))          // same title: not a change
        #expect(readsItems.count == 1)
        store.send(.rename(1, "renamed"))
        #expect(readsItems.count == 2)
        store.send(.setA(5))
        #expect(readsItems.count == 2)
        // The store compares fingerprints for this slice, never a kept copy of the collection.
        let root = try #require(store.box as? RootBox<SliceState, SliceAction>)
        _ = root
        #expect(ChangeDetector.strategy(for: store.state.items) == .fingerprint)
        #expect(ChangeDetector.strategy(for: store.nested) == .fields)
    }

    @Test func wholeStateReaderSeesEveryChangeOnce() {
        let store = Store(initialState: SliceState(), reducer: sliceReducer, environment: ())
        let readsAll = ChangeCounter { _ = store.state }
        store.send(.setA(1))
        store.send(.insert(3))
        store.send(.setFlag(true))
        #expect(readsAll.count == 3)
    }

    @Test func nestedSliceThroughScopedStore() {
        enum Parent: Sendable { case slice(SliceAction) }
        let parent = Store(initialState: SliceState(), reducer: sliceReducer, environment: ())
        let child = parent.scope(state: \.nested, embed: { $0 })
        let readsFlag = ChangeCounter { _ = child.flag }
        parent.send(.setA(3))
        #expect(readsFlag.count == 0)
        child.send(.setFlag(true))
        #expect(readsFlag.count == 1)
        #expect(parent.nested.flag)
    }
}
