import Foundation

/// A process's memory and CPU, read from `/proc/<pid>/status` and `/proc/<pid>/stat` (Linux).
///
/// ```swift
/// let usage = ProcessUsage.read(pid: server.child.pid)   // usage?.peakMiB: VmHWM
/// ```
struct ProcessUsage: Sendable {
    /// VmRSS: resident now, in MiB.
    var residentMiB: Double
    /// VmHWM: the peak resident size so far, in MiB.
    var peakMiB: Double
    /// User + system CPU seconds so far.
    var cpuSeconds: Double

    static func read(pid: Int32) -> ProcessUsage? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kib(_ field: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
            return Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        var cpu = 0.0
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            // Fields after the command: state is field 3; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12 {
                let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
                cpu = ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
            }
        }
        return ProcessUsage(residentMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024, cpuSeconds: cpu)
    }
}
