import Benchmark
import BenchmarkSupport
import Foundation
import Observation
import Swidux

// Recording on ÷ off: one `send` changing one entity of a 100,000-entity `EntityStore`
// (persistence on with a no-op writer and a 1 h debounce, one observer), with a
// `SessionRecorder` installed vs without. Two figures:
// - per send on the main actor (what the UI pays: finding what changed and queueing it;
//   hashing, encoding and writing run in the recorder's background batches);
// - per send including the work of writing: each sample ends with `recorder.flush()`, which
//   waits for every queued step to be hashed, encoded and written.
//
// Every figure is a ratio of medians of interleaved timings taken in the same process.

/// The benchmark's actions, `Codable` as recording requires.
enum RecordedAction: Codable, Sendable {
    case touch(UUID)
}

struct RecordedReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: RecordedAction, environment: Void) -> Effect<RecordedAction>? {
        switch action {
        case .touch(let id): state.items.modify(id) { $0.count &+= 1 }
        }
        return nil
    }
}

/// Re-arms a `withObservationTracking` observer after every change, as SwiftUI does.
@MainActor
final class Observer {
    var changes = 0
    private let read: @MainActor () -> Void

    init(read: @escaping @MainActor () -> Void) {
        self.read = read
        arm()
    }

    func arm() {
        withObservationTracking { read() } onChange: { [weak self] in
            MainActor.assumeIsolated { self?.changes += 1 }
        }
    }

    func rearmIfNeeded(_ seen: inout Int) {
        if changes != seen {
            seen = changes
            arm()
        }
    }
}

struct RecordingResult: Sendable {
    var offNanos: Double
    var onNanos: Double
    var onWithWritingNanos: Double
    var bytesPerStep: Double
}

@MainActor
func measureRecording(entities: Int, sendsPerSample: Int, rounds: Int) throws -> RecordingResult {
    func persistence() -> PersistenceMiddleware<AppState> {
        let persistence = PersistenceMiddleware(
            writers: [StateWriter(keyPath: \AppState.items) { _, _ in }], debounce: .seconds(3600))
        persistence.loopWarningThreshold = .max
        return persistence
    }
    let items = Item.make(entities, seed: 7)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let fingerprint = StateFingerprint<AppState>().entities(\.items)
    let recorder = try SessionRecorder<AppState, RecordedAction>(
        file: folder.appendingPathComponent("session.jsonl"), fingerprint: fingerprint, maxFileSize: 1 << 30)
    let off = Store(initialState: AppState(items: EntityStore(items)), reducer: RecordedReducer(), environment: (),
                    persistence: persistence())
    let on = Store(initialState: AppState(items: EntityStore(items)), reducer: RecordedReducer(), environment: (),
                   middleware: [recorder], persistence: persistence())
    let observers = [Observer { let _: EntityStore<Item> = off.items }, Observer { let _: EntityStore<Item> = on.items }]
    var seen = [0, 0]
    let ids = stride(from: 0, to: entities, by: max(1, entities / 100)).map { items[$0].id }
    // The first send captures the whole state once (the recording's start): not measured.
    on.send(.touch(ids[0]))
    off.send(.touch(ids[0]))
    try recorder.flush()

    func sample(_ k: Int, _ store: Store<AppState, RecordedAction>, flushing: Bool) -> Double {
        let time = nanoseconds {
            for i in 0..<sendsPerSample {
                store.send(.touch(ids[i % ids.count]))
                observers[k].rearmIfNeeded(&seen[k])
            }
            if flushing { try? recorder.flush() }
        } / Double(sendsPerSample)
        // Every sample starts with the writer idle (untimed flush): otherwise the batches of
        // one sample are written on the other core during the next samples, off ones
        // included, and on two cores that disturbs whichever sample they overlap (the
        // baseline varied 3.7–5.3 µs on a quiet machine). The writing is measured on its own
        // by the flushing samples.
        if k == 1, !flushing { try? recorder.flush() }
        return time
    }
    let medians = interleaved(rounds: rounds, [
        { sample(0, off, flushing: false) },
        { sample(1, on, flushing: false) },
        { sample(1, on, flushing: true) },
    ])
    try recorder.flush()
    let size = try FileManager.default.attributesOfItem(atPath: recorder.file.path)[.size] as? Int ?? 0
    precondition(recorder.stepCount == 1 + 2 * rounds * sendsPerSample, "every send was recorded")
    return RecordingResult(
        offNanos: medians[0], onNanos: medians[1], onWithWritingNanos: medians[2],
        bytesPerStep: Double(size) / Double(recorder.stepCount))
}

enum Metrics {
    static let ratio = BenchmarkMetric.custom("on ÷ off ×1000")
    static let writingRatio = BenchmarkMetric.custom("on+writing ÷ off ×1000")
    static let on = BenchmarkMetric.custom("recording ns/send", useScalingFactor: false)
    static let off = BenchmarkMetric.custom("baseline ns/send", useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 1)

    Benchmark(
        "Recording: Store.send at 100k entities, SessionRecorder on ÷ off (persistence on, 1 observer)",
        configuration: .init(metrics: [Metrics.ratio, Metrics.writingRatio, Metrics.on, Metrics.off])
    ) { benchmark async in
        let sends = Int(ProcessInfo.processInfo.environment["SWIDUX_BENCH_RECORDING_SENDS"] ?? "") ?? 5_000
        guard let r = try? await measureRecording(entities: 100_000, sendsPerSample: sends, rounds: 7) else {
            fatalError("the recording benchmark could not create its file")
        }
        benchmark.measurement(Metrics.ratio, permille(r.onNanos / r.offNanos))
        benchmark.measurement(Metrics.writingRatio, permille(r.onWithWritingNanos / r.offNanos))
        benchmark.measurement(Metrics.on, Int(r.onNanos.rounded()))
        benchmark.measurement(Metrics.off, Int(r.offNanos.rounded()))
        report("recording", ["off_ns": format(r.offNanos), "on_ns": format(r.onNanos),
                             "on_with_writing_ns": format(r.onWithWritingNanos),
                             "ratio": format(r.onNanos / r.offNanos, 3),
                             "ratio_with_writing": format(r.onWithWritingNanos / r.offNanos, 3),
                             "bytes_per_step": format(r.bytesPerStep, 1)])
    }
}
