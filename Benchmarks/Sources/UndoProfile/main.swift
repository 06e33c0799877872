import BenchmarkSupport
import Foundation
import Swidux

// `UndoProfile on|off SENDS`: SENDS sends, each changing one entity of a 100,000-entity store
// (persistence on with a no-op writer, undo recording `\.items` and `\.ui` as in the
// `UndoMemory` benchmark), with undo on or off. The marginal cost of a send is the difference
// between two runs with different SENDS (the set-up cancels out), read under a profiler:
//
//     swift build -c release --product UndoProfile
//     valgrind --tool=callgrind .build/release/UndoProfile on 5000
//     valgrind --tool=callgrind .build/release/UndoProfile on 25000

@MainActor
func run() {
    let arguments = CommandLine.arguments
    let on = arguments.count > 1 && arguments[1] == "on"
    let sends = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000
    let persistence = PersistenceMiddleware(
        writers: [StateWriter(keyPath: \AppState.items) { _, _ in }], debounce: .seconds(3600))
    persistence.loopWarningThreshold = .max
    let items = Item.make(100_000, seed: 7)
    let store = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: (),
                      persistence: persistence,
                      undo: on ? UndoMiddleware(maxDepth: 100, recording: \.items, \.ui) : nil)
    let ids = stride(from: 0, to: 100_000, by: 1000).map { items[$0].id }
    store.send(.touch(ids[0]))
    let start = ContinuousClock.now
    for index in 0..<sends { store.send(.touch(ids[index % ids.count])) }
    print(on ? "on" : "off", (ContinuousClock.now - start) / sends, "per send")
}

MainActor.assumeIsolated { run() }
