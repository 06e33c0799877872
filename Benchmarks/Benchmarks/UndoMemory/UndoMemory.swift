import Benchmark
import BenchmarkSupport
import Foundation
import Swidux
import CMallocInfo

// 6. Undo memory: the memory held by N undo steps of a 100,000-entity state with one
//    entity changed per step, relative to the state's own size.
//
// Measured in-process with glibc's `mallinfo2()` (bytes in use: `uordblks` + `hblkhd`),
// as deltas: building the state, then the steps. `mallinfo2` sees only the main arena's
// small chunks, and the benchmark runs on a worker thread, so the mmap threshold is fixed
// at 16 KiB first: every buffer of an EntityStore (slots, index) is then an mmap'd block,
// counted in `hblkhd` whatever arena allocated it. The resident set size delta
// (/proc/self/statm) and package-benchmark's `peakMemoryResidentDelta` are cross-checks.
//
// The target is 1,000 steps. Each step of today's UndoMiddleware keeps a whole `State`
// whose EntityStore storage is copied on the next write (copy-on-write), i.e. one full
// copy per step: 1,000 steps of a 100k state would need ~1,000× the state (gigabytes).
// So the 100k case runs `steps100k` steps and the per-step cost is extrapolated; the
// 1k-entity case runs the full 1,000 steps to show the per-step cost is one state copy.

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
    let undo = UndoMiddleware<AppState>(maxDepth: steps)
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

let steps100k = 40

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
    let projected = BenchmarkMetric.custom("projected 1000 steps ÷ state ×1000")

    for (entities, steps) in [(100_000, steps100k), (1_000, 1_000)] {
        Benchmark(
            "Undo memory: \(steps) steps on \(entities / 1000)k entities",
            configuration: .init(metrics: [.peakMemoryResidentDelta, total, perStep, stateMB, undoMB, projected])
        ) { benchmark async in
            let r = await measureUndo(entities: entities, steps: steps)
            benchmark.measurement(total, permille(r.totalOverState))
            benchmark.measurement(perStep, permille(r.perStepOverState))
            benchmark.measurement(stateMB, r.stateBytes / 1024)
            benchmark.measurement(undoMB, r.undoBytes / 1024)
            benchmark.measurement(projected, permille(r.perStepOverState * 1000))
            report("undo \(entities)", [
                "steps": "\(r.steps)", "state_MB": format(Double(r.stateBytes) / 1e6, 2),
                "undo_MB": format(Double(r.undoBytes) / 1e6, 1),
                "undo_over_state": format(r.totalOverState, 2), "per_step_over_state": format(r.perStepOverState, 3),
                "projected_1000_steps_over_state": format(r.perStepOverState * 1000, 0),
                "rss_state_MB": format(Double(r.stateResident) / 1e6, 2), "rss_undo_MB": format(Double(r.undoResident) / 1e6, 1),
            ])
        }
    }
}
