import Foundation

/// A process's memory and CPU, read from `/proc/<pid>/status` and `/proc/<pid>/stat` (Linux),
/// for the benchmarks and the load tool.
///
/// ```swift
/// ProcessUsage.resetPeak(pid: pid)
/// let usage = ProcessUsage.read(pid: server.child.processIdentifier)   // usage?.peakMiB: VmHWM since the reset
/// ```
public struct ProcessUsage: Sendable {
    /// VmRSS: resident now, in MiB.
    public var residentMiB: Double
    /// VmHWM: the peak resident size so far (or since ``resetPeak(pid:)``), in MiB.
    public var peakMiB: Double
    /// User + system CPU seconds so far.
    public var cpuSeconds: Double

    /// Makes the peak (VmHWM) start again from the current resident size (writes 5 to
    /// `/proc/<pid>/clear_refs`).
    public static func resetPeak(pid: Int32) {
        let descriptor = open("/proc/\(pid)/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, "5", 1)
        close(descriptor)
    }

    /// The figures of `pid`; `nil` where `/proc` is not there (or the process is gone).
    public static func read(pid: Int32) -> ProcessUsage? {
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
