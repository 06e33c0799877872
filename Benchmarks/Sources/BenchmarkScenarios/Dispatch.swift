import Foundation
import Observation
import Swidux
import BenchmarkSupport

// 1. Dispatch: `Store.send` of a trivial action, one observer attached, vs the hand-written
//    seed-002 `AppStore` doing the same work.
// 2. Large state: one `send` changing one entity of a 1,000 vs 100,000-entity `EntityStore`,
//    observer attached, persistence on (no-op writer, 1 h debounce: no flush in the loop);
//    the same for the hand-written store.

public struct DispatchResult: Sendable {
    public var storeNanos: Double
    public var seedNanos: Double
    public var storeNotified: Int
    public var seedNotified: Int
}

@MainActor
public func measureDispatch(entities: Int, sendsPerSample: Int, rounds: Int) -> DispatchResult {
    let items = EntityStore(Item.make(entities))
    let store = Store(initialState: AppState(items: items), reducer: AppReducer(), environment: ())
    let seed = HandWrittenAppStore(items: items)
    let storeObserver = Observer { _ = store.ui }
    let seedObserver = Observer { _ = seed.ui }
    let medians = interleaved(rounds: rounds, [
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    store.send(.bump)
                    storeObserver.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    seed.send(.bump)
                    seedObserver.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
    ])
    precondition(store.ui.counter == seed.ui.counter, "both stores did the same work")
    precondition(storeObserver.changes == rounds * sendsPerSample, "the Store observer saw every change")
    return DispatchResult(storeNanos: medians[0], seedNanos: medians[1],
                          storeNotified: storeObserver.changes, seedNotified: seedObserver.changes)
}

public struct LargeStateResult: Sendable {
    public var storeSmall: Double, storeLarge: Double
    public var seedSmall: Double, seedLarge: Double
}

@MainActor
public func measureLargeState(small: Int, large: Int, rounds: Int) -> LargeStateResult {
    let smallItems = Item.make(small, seed: 1)
    let largeItems = Item.make(large, seed: 2)
    let smallStore = Store(initialState: AppState(items: EntityStore(smallItems)), reducer: AppReducer(),
                           environment: (), persistence: noOpPersistence())
    let largeStore = Store(initialState: AppState(items: EntityStore(largeItems)), reducer: AppReducer(),
                           environment: (), persistence: noOpPersistence())
    let smallSeed = HandWrittenAppStore(items: EntityStore(smallItems), persistence: noOpPersistence())
    let largeSeed = HandWrittenAppStore(items: EntityStore(largeItems), persistence: noOpPersistence())
    // `store.items` alone is an `ObservedEntities` view that observes nothing until read:
    // read the entity store itself (the whole slice), as the seed's observer does.
    let observers = [
        Observer { let _: EntityStore<Item> = smallStore.items }, Observer { let _: EntityStore<Item> = largeStore.items },
        Observer { _ = smallSeed.items }, Observer { _ = largeSeed.items },
    ]
    // The same 100 touched ids per store, spread over the collection.
    let smallIDs = stride(from: 0, to: small, by: small / 100).map { smallItems[$0].id }
    let largeIDs = stride(from: 0, to: large, by: large / 100).map { largeItems[$0].id }

    // The Store is O(1) per send: many sends per sample. The seed copies: fewer.
    let storeSends = 2_000, seedSends = 20
    func sample(_ k: Int, _ ids: [UUID], _ count: Int, _ send: (AppAction) -> Void) -> Double {
        nanoseconds {
            for i in 0..<count {
                send(.touch(ids[i % ids.count]))
                observers[k].rearmIfNeeded()
            }
        } / Double(count)
    }
    let medians = interleaved(rounds: rounds, [
        { sample(0, smallIDs, storeSends) { smallStore.send($0) } },
        { sample(1, largeIDs, storeSends) { largeStore.send($0) } },
        { sample(2, smallIDs, seedSends) { smallSeed.send($0) } },
        { sample(3, largeIDs, seedSends) { largeSeed.send($0) } },
    ])
    precondition(observers.allSatisfy { $0.changes > 0 })
    return LargeStateResult(storeSmall: medians[0], storeLarge: medians[1], seedSmall: medians[2], seedLarge: medians[3])
}

