import Benchmark
import BenchmarkSupport
import BenchmarkScenarios
import Foundation
import Swidux
import CMallocInfo

// 6. Undo: memory held by undo steps, and the time of a send with undo on.
//
// Memory: the memory held by N undo steps of a state with one entity changed per step,
// relative to the state's own size, measured in full (1,000 steps on 100,000 entities and
// on 1,000). Measured in-process with glibc's `mallinfo2()` (bytes in use: `uordblks` +
// `hblkhd`), as deltas: building the state, then the steps. `mallinfo2` sees only the main
// arena's small chunks, and the benchmark runs on a worker thread, so the mmap threshold is
// fixed at 16 KiB first: every buffer of an EntityStore (slots, index) is then an mmap'd
// block, counted in `hblkhd` whatever arena allocated it. The resident set size delta
// (/proc/self/statm) and package-benchmark's `peakMemoryResidentDelta` are cross-checks.
//
// Time: `Store.send` changing one entity, persistence on (no-op writer, 1 h debounce), with
// undo on at 1,000 and 100,000 entities and with undo off at both sizes, timed interleaved
// in one process: 100k ÷ 1k with undo on, and undo on ÷ off.
//
// Undo records patches of the parts the app names (`recording: \.items, \.ui`): a step
// changing one entity holds that entity before and after the step (for field-by-field
// undo), whatever the size of the state.

func bytesInUse() -> Int { Int(swidux_bench_malloc_bytes_in_use()) }
func residentBytes() -> Int { Int(swidux_bench_resident_bytes()) }

struct UndoResult: Sendable {
    var entities: Int
    var steps: Int
    var stateBytes: Int
    var undoBytes: Int
    var stateResident: Int
    var undoResident: Int
    var perStepOverState: Double { Double(undoBytes) / Double(steps) / Double(stateBytes) }
    var totalOverState: Double { Double(undoBytes) / Double(stateBytes) }
}

@MainActor
func measureUndo(entities: Int, steps: Int) -> UndoResult {
    let items = Item.make(entities, seed: 3)
    let ids = items.map(\.id)
    swidux_bench_prepare_malloc()
    let before = bytesInUse(), residentBefore = residentBytes()
    let state = AppState(items: EntityStore(items))
    let stateBytes = bytesInUse() - before, stateResident = residentBytes() - residentBefore
    let undo = UndoMiddleware<AppState>(maxDepth: steps, recording: \.items, \.ui)
    let store = Store(initialState: state, reducer: AppReducer(), environment: (), undo: undo)
    let start = bytesInUse(), residentStart = residentBytes()
    for step in 0..<steps {
        store.send(.touch(ids[(step &* 7919) % ids.count]))
    }
    let undoBytes = bytesInUse() - start, undoResident = residentBytes() - residentStart
    precondition(undo.undoCount == steps, "every step recorded")
    blackHole(store)
    precondition(stateBytes > 0 && undoBytes > 0, "mallinfo2 measured nothing (state \(stateBytes), undo \(undoBytes))")
    return UndoResult(entities: entities, steps: steps, stateBytes: stateBytes, undoBytes: undoBytes,
                      stateResident: stateResident, undoResident: undoResident)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .peakMemoryResidentDelta],
        warmupIterations: 0,
        maxDuration: .seconds(30),
        maxIterations: 1
    )
    let total = BenchmarkMetric.custom("undo bytes ÷ state bytes ×1000")
    let perStep = BenchmarkMetric.custom("per step ÷ state ×1000")
    let stateMB = BenchmarkMetric.custom("state KB", useScalingFactor: false)
    let undoMB = BenchmarkMetric.custom("undo KB", useScalingFactor: false)

    for (entities, steps) in [(100_000, 1_000), (1_000, 1_000)] {
        Benchmark(
            "Undo memory: \(steps) steps on \(entities / 1000)k entities",
            configuration: .init(metrics: [.peakMemoryResidentDelta, total, perStep, stateMB, undoMB])
        ) { benchmark async in
            let r = await measureUndo(entities: entities, steps: steps)
            benchmark.measurement(total, permille(r.totalOverState))
            benchmark.measurement(perStep, permille(r.perStepOverState))
            benchmark.measurement(stateMB, r.stateBytes / 1024)
            benchmark.measurement(undoMB, r.undoBytes / 1024)
            report("undo \(entities)", [
                "steps": "\(r.steps)", "state_MB": format(Double(r.stateBytes) / 1e6, 2),
                "undo_MB": format(Double(r.undoBytes) / 1e6, 3),
                "undo_over_state": format(r.totalOverState, 4), "per_step_over_state": format(r.perStepOverState, 6),
                "undo_bytes_per_step": format(Double(r.undoBytes) / Double(r.steps), 0),
                "rss_state_MB": format(Double(r.stateResident) / 1e6, 2), "rss_undo_MB": format(Double(r.undoResident) / 1e6, 1),
            ])
        }
    }

    let ratioLarge = BenchmarkMetric.custom("undo on 100k ÷ 1k ×1000")
    let ratioOnOff = BenchmarkMetric.custom("undo on ÷ off 100k ×1000")
    let on100k = BenchmarkMetric.custom("undo on 100k ns/send", useScalingFactor: false)
    let off100k = BenchmarkMetric.custom("undo off 100k ns/send", useScalingFactor: false)
    Benchmark(
        "Undo time: Store.send changing 1 entity, undo on 100k ÷ 1k, on ÷ off",
        configuration: .init(metrics: [ratioLarge, ratioOnOff, on100k, off100k], warmupIterations: 1, maxIterations: 3)
    ) { benchmark async in
        let r = await measureUndoTime(small: 1_000, large: 100_000, sendsPerSample: 2_000, rounds: 9)
        benchmark.measurement(ratioLarge, permille(r.on100k / r.on1k))
        benchmark.measurement(ratioOnOff, permille(r.on100k / r.off100k))
        benchmark.measurement(on100k, Int(r.on100k.rounded()))
        benchmark.measurement(off100k, Int(r.off100k.rounded()))
        report("undo-time", [
            "on_1k_ns": format(r.on1k), "on_100k_ns": format(r.on100k),
            "off_1k_ns": format(r.off1k), "off_100k_ns": format(r.off100k),
            "on_100k_over_1k": format(r.on100k / r.on1k, 3),
            "on_over_off_100k": format(r.on100k / r.off100k, 3), "on_over_off_1k": format(r.on1k / r.off1k, 3),
        ])
    }
}
