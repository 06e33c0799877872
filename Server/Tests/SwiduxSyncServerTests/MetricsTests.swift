import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `serve --metrics-port`: Prometheus text at `GET /metrics` on its own listener, and the
/// request id in every answer.
@Suite("Metrics and request ids")
struct MetricsTests {
    /// One sample of the Prometheus text format: name, labels, value.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// A strict reader of the Prometheus text exposition format (version 0.0.4): comment
    /// lines (`# HELP`, `# TYPE name counter|gauge|histogram|summary|untyped`) and samples
    /// `name{label="value",...} number`. Anything else fails the test.
    static func parse(_ text: String) throws -> (types: [String: String], samples: [Sample]) {
        var types: [String: String] = [:], samples: [Sample] = []
        struct Malformed: Error, CustomStringConvertible { var description: String }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                    throw Malformed(description: "bad TYPE line: \(line)")
                }
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            var rest = Substring(line)
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
            guard !name.isEmpty, !(name.first!.isNumber) else { throw Malformed(description: "bad metric name: \(line)") }
            rest = rest.dropFirst(name.count)
            var labels: [String: String] = [:]
            if rest.first == "{" {
                rest = rest.dropFirst()
                while rest.first != "}" {
                    let key = rest.prefix { $0 != "=" }
                    rest = rest.dropFirst(key.count)
                    guard rest.hasPrefix("=\"") else { throw Malformed(description: "bad label: \(line)") }
                    rest = rest.dropFirst(2)
                    var value = ""
                    while let character = rest.first, character != "\"" {
                        if character == "\\" {
                            rest = rest.dropFirst()
                            guard let escaped = rest.first else { throw Malformed(description: "bad escape: \(line)") }
                            value.append(escaped == "n" ? "\n" : escaped)
                        } else {
                            value.append(character)
                        }
                        rest = rest.dropFirst()
                    }
                    guard rest.first == "\"" else { throw Malformed(description: "unterminated label: \(line)") }
                    rest = rest.dropFirst()
                    labels[String(key)] = value
                    if rest.first == "," { rest = rest.dropFirst() }
                    guard !rest.isEmpty else { throw Malformed(description: "unterminated labels: \(line)") }
                }
                rest = rest.dropFirst()
            }
            guard rest.first == " ", let value = Double(rest.dropFirst().split(separator: " ").first ?? "") else {
                throw Malformed(description: "bad value: \(line)")
            }
            samples.append(Sample(name: String(name), labels: labels, value: value))
        }
        return (types, samples)
    }

    static func metrics(port: Int) async throws -> (types: [String: String], samples: [Sample]) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain") == true)
        return try parse(String(decoding: data, as: UTF8.self))
    }

    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
    }

    @Test("requests by route and status with latency, open long polls, rows applied, connection waits", .timeLimit(.minutes(2)))
    func prometheusText() async throws {
        let port = try PostgresCluster.freePort()
        try await TestServer.with(metricsPort: port) { server in
            let client = try await server.client(space: "home", tables: ["todo"])
            _ = try await client.push([todo("a"), todo("b"), todo("c")])
            _ = try await client.pull()
            let refused = try await client.with(token: "wrong").pullAnswer()
            #expect(refused.status == 401)

            let cursor = try await client.pull().cursor
            let poll = Task { try await client.pull(after: cursor, wait: 30) }
            var open: Double?
            for _ in 0..<100 {
                open = Self.value(try await Self.metrics(port: port).samples, "swidux_open_long_polls")
                if open == 1 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(open == 1, "open long polls: \(String(describing: open))")
            _ = try await client.push([todo("d")])
            #expect(try await poll.value.rows.map(\.id) == [.text("d")])

            let (types, samples) = try await Self.metrics(port: port)
            #expect(types["swidux_http_requests_total"] == "counter")
            #expect(types["swidux_http_request_duration_seconds"] == "histogram")
            #expect(types["swidux_open_long_polls"] == "gauge")
            #expect(Self.value(samples, "swidux_http_requests_total", ["route": "/v1/push", "method": "POST", "status": "200"]) == 2)
            #expect(Self.value(samples, "swidux_http_requests_total", ["route": "/v1/pull", "method": "GET", "status": "401"]) == 1)
            #expect((Self.value(samples, "swidux_http_requests_total", ["route": "/v1/pull", "method": "GET", "status": "200"]) ?? 0) >= 3)
            #expect(Self.value(samples, "swidux_http_request_duration_seconds_count", ["route": "/v1/push", "method": "POST"]) == 2)
            #expect(Self.value(samples, "swidux_rows_applied_total") == 4)
            #expect(Self.value(samples, "swidux_rows_refused_total") == 0)
            #expect(Self.value(samples, "swidux_open_long_polls") == 0)
            #expect((Self.value(samples, "swidux_postgres_connection_wait_seconds_count") ?? 0) >= 4)
            // The metrics are not on the sync port.
            #expect(try await client.raw("GET", "metrics").status == 404)
        }
    }

    @Test("every answer names its request id; an error body carries the same one")
    func requestIDs() async throws {
        try await TestServer.with { server in
            var request = URLRequest(url: server.url.appendingPathComponent(SyncProtocol.pullPath))
            request.setValue("Bearer wrong", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            let header = try #require((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Request-Id"))
            let body = try JSONDecoder().decode(SyncErrorBody.self, from: data)
            #expect(body.requestID == header)
            #expect(header.count >= 16)
            let (_, second) = try await URLSession.shared.data(for: request)
            #expect((second as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Request-Id") != header)
        }
    }
}

