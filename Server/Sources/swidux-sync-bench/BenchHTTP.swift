import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The benchmark's HTTP requests and time arithmetic.
enum BenchHTTP {
    static func send(_ session: URLSession, _ base: URL, _ method: String, _ path: String, _ token: String, _ body: Data?,
                     query: String = "", expect status: Int) async throws -> Data {
        var components = URLComponents(url: base.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.percentEncodedQuery = query }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = 600
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == status else {
            throw BenchFailure("\(method) \(path): \((response as? HTTPURLResponse)?.statusCode ?? -1) \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return data
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func ms(_ duration: Duration) -> String { String(format: "%.1f", seconds(duration) * 1000) }

    static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }

    static func rate(_ rows: Int, _ duration: Duration) -> String { String(format: "%.0f", Double(rows) / seconds(duration)) }
}

/// A benchmark step that went wrong.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A process's memory from `/proc/<pid>/status` (Linux): the peak resident set (`VmHWM`),
/// which writing 5 to `/proc/<pid>/clear_refs` resets to the current one.
enum ProcessMemory {
    /// `VmHWM` in KiB, or nil where /proc is not there.
    static func peakKiB(pid: Int32) -> Int? { field("VmHWM", pid: pid) }

    /// `VmRSS` in KiB.
    static func currentKiB(pid: Int32) -> Int? { field("VmRSS", pid: pid) }

    /// Makes the peak start again from the current resident set.
    static func resetPeak(pid: Int32) {
        let descriptor = open("/proc/\(pid)/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, "5", 1)
        close(descriptor)
    }

    static func mib(_ kib: Int?) -> String { kib.map { String(format: "%.1f MiB", Double($0) / 1024) } ?? "n/a" }

    private static func field(_ name: String, pid: Int32) -> Int? {
        // /proc files report a size of 0: read them until the end, not by their size.
        let descriptor = open("/proc/\(pid)/status", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 4096) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}
