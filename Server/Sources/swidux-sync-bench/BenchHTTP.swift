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
