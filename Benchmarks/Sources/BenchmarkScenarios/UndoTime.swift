import Foundation
import Swidux
import BenchmarkSupport

// The time of a send changing one entity with undo on and off, at 1,000 and 100,000
// entities, timed interleaved: 100k ÷ 1k with undo on, and undo on ÷ off.

public struct UndoTimeResult: Sendable {
    public var on1k: Double, on100k: Double, off1k: Double, off100k: Double
}

@MainActor
public func measureUndoTime(small: Int, large: Int, sendsPerSample: Int, rounds: Int) -> UndoTimeResult {
    let smallItems = Item.make(small, seed: 1)
    let largeItems = Item.make(large, seed: 2)
    func store(_ items: [Item], undo: Bool) -> Store<AppState, AppAction> {
        Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: (),
              persistence: noOpPersistence(), undo: undo ? UndoMiddleware(maxDepth: 100, recording: \.items, \.ui) : nil)
    }
    let stores = [store(smallItems, undo: true), store(largeItems, undo: true),
                  store(smallItems, undo: false), store(largeItems, undo: false)]
    // The same 100 touched ids per size, spread over the collection.
    let smallIDs = stride(from: 0, to: small, by: small / 100).map { smallItems[$0].id }
    let largeIDs = stride(from: 0, to: large, by: large / 100).map { largeItems[$0].id }
    func sample(_ k: Int, _ ids: [UUID]) -> Double {
        nanoseconds {
            for i in 0..<sendsPerSample { stores[k].send(.touch(ids[i % ids.count])) }
        } / Double(sendsPerSample)
    }
    let medians = interleaved(rounds: rounds, [
        { sample(0, smallIDs) }, { sample(1, largeIDs) }, { sample(2, smallIDs) }, { sample(3, largeIDs) },
    ])
    precondition(stores[0].canUndo && stores[1].canUndo && !stores[2].canUndo)
    return UndoTimeResult(on1k: medians[0], on100k: medians[1], off1k: medians[2], off100k: medians[3])
}

