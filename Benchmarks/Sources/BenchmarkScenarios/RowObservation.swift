import Foundation
import Observation
import Swidux
import BenchmarkSupport

// Row-level observation: 10,000 row observers, one entity changed per send, ÷ one observer;
// a trivial send after 100,000 rows were read once ÷ after none.

public struct RowObserversResult: Sendable {
    public var manyNanos: Double, oneNanos: Double
    public var firedPerSend: Double
}

@MainActor
public func measureRowObservers(rows: Int, sendsPerSample: Int, rounds: Int) -> RowObserversResult {
    let items = Item.make(rows)
    let many = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
    let one = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
    // The touched ids cycle through 100 rows spread over the list.
    let touched = stride(from: 0, to: rows, by: rows / 100).map { items[$0].id }
    var observers: [UUID: Observer] = [:]
    for item in items {
        let id = item.id
        observers[id] = Observer { _ = many.items[id] }
    }
    // One observer, on the row that each send changes: the same notification work per send.
    let single = Observer { _ = one.items[touched[0]] }
    let medians = interleaved(rounds: rounds, [
        {
            nanoseconds {
                for i in 0..<sendsPerSample {
                    let id = touched[i % touched.count]
                    many.send(.touch(id))
                    observers[id]!.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    one.send(.touch(touched[0]))
                    single.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
    ])
    let sent = rounds * sendsPerSample
    let fired = observers.values.reduce(0) { $0 + $1.changes }
    precondition(fired == sent, "exactly one row observer fired per send (\(fired) for \(sent) sends)")
    precondition(single.changes == sent, "the single observer saw every change")
    return RowObserversResult(manyNanos: medians[0], oneNanos: medians[1], firedPerSend: Double(fired) / Double(sent))
}

public struct RowsReadResult: Sendable {
    public var afterReadNanos: Double, noneNanos: Double
}

@MainActor
public func measureRowsRead(rows: Int, sendsPerSample: Int, rounds: Int) -> RowsReadResult {
    let items = Item.make(rows)
    let read = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
    let none = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
    // A long list scrolled once: every row read by an observer that is never notified again.
    for item in items {
        let id = item.id
        withObservationTracking { _ = read.items[id] } onChange: {}
    }
    let readObserver = Observer { _ = read.ui }
    let noneObserver = Observer { _ = none.ui }
    let medians = interleaved(rounds: rounds, [
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    read.send(.bump)
                    readObserver.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    none.send(.bump)
                    noneObserver.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
    ])
    precondition(readObserver.changes == rounds * sendsPerSample && noneObserver.changes == rounds * sendsPerSample,
                 "the ui observers saw every change")
    return RowsReadResult(afterReadNanos: medians[0], noneNanos: medians[1])
}

