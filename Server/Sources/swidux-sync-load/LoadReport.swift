import Foundation
import PostgresTestSupport

extension LoadRun {
    /// Prints the run's figures against the targets; true when a target was missed or anything failed.
    func report(recorder: LoadRecorder, expectedBySpace: [Int], usages: [ProcessUsage?], sampledPeaks: [Double], cpu: [Double]) -> Bool {
        let snapshot = recorder.snapshot()
        var fromAnswer: [UInt64] = [], fromSent: [UInt64] = []
        var early = 0, unknown = 0
        var delivered: [Int64: Int] = [:]
        for (version, time) in snapshot.deliveries {
            guard let push = snapshot.pushes[version] else { unknown += 1; continue }
            delivered[version, default: 0] += 1
            fromSent.append(time &- push.sent)
            if time < push.answered { early += 1; fromAnswer.append(0) } else { fromAnswer.append(time - push.answered) }
        }
        fromAnswer.sort()
        fromSent.sort()
        let expected = snapshot.pushes.values.reduce(0) { $0 + expectedBySpace[$1.space] }
        let missing = snapshot.pushes.reduce(0) { $0 + max(0, expectedBySpace[$1.value.space] - (delivered[$1.key] ?? 0)) }
        func percentile(_ values: [UInt64], _ p: Double) -> Double {
            guard !values.isEmpty else { return .nan }
            let index = min(values.count - 1, max(0, Int((p * Double(values.count)).rounded(.up)) - 1))
            return Double(values[index]) / 1e6
        }
        func line(_ values: [UInt64]) -> String {
            String(format: "p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms",
                   percentile(values, 0.5), percentile(values, 0.95), percentile(values, 0.99), percentile(values, 1))
        }
        let pushes = snapshot.pushes.count
        print("pushes answered: \(pushes) (\(String(format: "%.1f", Double(pushes) / Double(configuration.seconds)))/s); "
              + "long-poll answers: \(snapshot.polls); rows delivered: \(snapshot.deliveries.count) of \(expected) expected")
        print("push answered → long poll returned with the row: \(line(fromAnswer))")
        print("  (\(early) of \(fromAnswer.count) returned before the pusher had its answer: counted as 0 ms)")
        print("push sent → long poll returned with the row:     \(line(fromSent))")
        var rssMissed = false
        for (index, usage) in usages.enumerated() {
            guard let usage else { print("server \(index + 1): /proc not readable (RSS unknown)"); continue }
            let peak = max(usage.peakMiB, sampledPeaks[index])
            rssMissed = rssMissed || peak > configuration.rssTargetMiB
            print(String(format: "server %d: peak RSS (VmHWM) %.1f MiB, RSS at end %.1f MiB, CPU during the pushes %.1f s",
                         index + 1, peak, usage.residentMiB, cpu[index]))
        }
        let errors = snapshot.errors + missing + unknown
        print("errors: \(snapshot.errors) (non-2xx or connection), rows never delivered: \(missing), rows of unknown pushes: \(unknown)")
        for sample in snapshot.samples { print("  error: \(sample)") }
        let p95 = percentile(fromAnswer, 0.95)
        let latencyMissed = !(p95 <= configuration.p95TargetMilliseconds)
        print(String(format: "targets: p95 %.1f ms ≤ %.0f ms: %@; peak RSS ≤ %.0f MiB: %@; no error: %@",
                     p95, configuration.p95TargetMilliseconds, latencyMissed ? "MISSED" : "met",
                     configuration.rssTargetMiB, rssMissed ? "MISSED" : "met", errors > 0 ? "MISSED" : "met"))
        return latencyMissed || rssMissed || errors > 0
    }
}
