import BenchmarkScenarios
import BenchmarkSupport
import Foundation

// The speed check of `.ci/run`: the ratios the benchmarks README targets, each measured in
// one short interleaved run (both sides in this process, so the machine's speed cancels
// out), compared with its limit (`RatioCheck`). Exits 1 when a ratio is past its limit in
// every attempt. `SWIDUX_CHECK_SCALE` (default 1) multiplies the rounds, for a steadier run.

let scale = max(1, Int(ProcessInfo.processInfo.environment["SWIDUX_CHECK_SCALE"] ?? "") ?? 1)

/// The EntityStore ÷ Dictionary ratio of one operation at 10,000 entities.
@MainActor
func entityStoreRatio(_ name: String) -> Double {
    let operation = operations.first { $0.name == name }!
    let fixture = Fixture(size: 10_000)
    let times = interleaved(rounds: 31 * scale, [{ operation.entityStore(fixture) }, { operation.dictionary!(fixture) }])
    return times[0] / times[1]
}

let checks: [RatioCheck] = [
    RatioCheck(name: "Store.send ÷ hand-written AppStore", target: 1.2, missedAt: nil, better: .smaller) {
        let r = measureDispatch(entities: 1_000, sendsPerSample: 5_000, rounds: 7 * scale)
        return r.storeNanos / r.seedNanos
    },
    RatioCheck(name: "Store.send at 100k ÷ 1k entities", target: 1.5, missedAt: nil, better: .smaller) {
        let r = measureLargeState(small: 1_000, large: 100_000, rounds: 5 * scale)
        return r.storeLarge / r.storeSmall
    },
    RatioCheck(name: "10,000 row observers ÷ 1", target: 1.5, missedAt: nil, better: .smaller) {
        let r = measureRowObservers(rows: 10_000, sendsPerSample: 1_000, rounds: 7 * scale)
        return r.manyNanos / r.oneNanos
    },
    RatioCheck(name: "send after 100k rows read ÷ none", target: 1.5, missedAt: nil, better: .smaller) {
        let r = measureRowsRead(rows: 100_000, sendsPerSample: 5_000, rounds: 7 * scale)
        return r.afterReadNanos / r.noneNanos
    },
    RatioCheck(name: "EntityStore ÷ Dictionary, lookup 10k", target: 2, missedAt: nil, better: .smaller) {
        entityStoreRatio("lookup")
    },
    RatioCheck(name: "EntityStore ÷ Dictionary, insert 10k", target: 2, missedAt: nil, better: .smaller) {
        entityStoreRatio("insert")
    },
    RatioCheck(name: "EntityStore ÷ Dictionary, modify 10k", target: 2, missedAt: nil, better: .smaller) {
        entityStoreRatio("modify")
    },
    RatioCheck(name: "undo on ÷ off, send at 100k entities", target: 2, missedAt: 2.5, better: .smaller) {
        let r = measureUndoTime(small: 1_000, large: 100_000, sendsPerSample: 1_000, rounds: 7 * scale)
        return r.on100k / r.off100k
    },
    RatioCheck(name: "SQLite flush rows/s ÷ raw GRDB (20k inserts)", target: 0.7, missedAt: nil, better: .larger) {
        let r = try await measureFlush(count: 20_000, rounds: 3 * scale)
        return r.rawInsert / r.swiduxInsert
    },
]

var failed: [String] = []
print("Speed check: each ratio against its limit (1.5× its target, or 1.5× today's figure where the target is missed)")
for check in checks {
    let (ratios, passed) = try await check.run()
    let comparison = check.better == .smaller ? "≤" : "≥"
    let measured = ratios.map { format($0, 2) }.joined(separator: ", ")
    print("\(passed ? "ok  " : "FAIL") \(check.name): \(measured) (limit \(comparison) \(format(check.limit, 2)), target \(comparison) \(format(check.target, 2)))")
    fflush(nil)
    if !passed { failed.append(check.name) }
}
print("\(checks.count - failed.count) passed, \(failed.count) failed")
if !failed.isEmpty {
    print("A clear regression in: \(failed.joined(separator: "; ")). Run the benchmark of that figure (Benchmarks/README.md) before and after the change.")
    exit(1)
}
