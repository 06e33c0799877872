import Foundation
@testable import SwiduxSync
import SwiduxSyncWire
import SwiduxTestSupport
import Testing

/// The client's HTTP against broken and hostile servers: every answer either is read as
/// HTTP says or fails with a clear error, in bounded memory and at once.
@Suite("The sync client's HTTP against hostile servers")
struct HTTPTransportTests {
    static func answer(_ text: String) -> Data { Data(text.utf8) }

    /// `GET v1/pull` through a transport to `server`; the body, or the error.
    static func pull(_ server: URL, timeout: TimeInterval = 30) async -> Result<Data, any Error> {
        let transport = SyncTransport(server: server, token: "t")
        do {
            return .success(try await transport.send("GET", SyncProtocol.pullPath, query: [URLQueryItem(name: "after", value: "0")], timeout: timeout))
        } catch {
            return .failure(error)
        }
    }

    static func unreachableReason(_ result: Result<Data, any Error>) -> String? {
        guard case .failure(let error) = result, case SyncError.unreachable = error else { return nil }
        return "\(error)"
    }

    @Test("A negative chunk size is a clean error (the answer is dropped with its connection), no crash")
    func negativeChunkSize() async throws {
        let server = try ScriptedHTTPServer { _, write in
            _ = write(Self.answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n"))
        }
        defer { server.stop() }
        let reason = Self.unreachableReason(await Self.pull(server.url))
        // AsyncHTTPClient's parser refuses the chunk and closes the connection.
        #expect(reason?.contains("not valid HTTP") == true || reason?.contains("the connection was closed before the answer was complete") == true,
                "\(reason ?? "no error")")
    }

    @Test("A 600 MiB answer is refused past the bound, announced or chunked, and not read to its end",
          arguments: [true, false])
    func giantAnswer(announced: Bool) async throws {
        let total = 600 << 20
        let server = try ScriptedHTTPServer { _, write in
            let piece = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
            if announced {
                guard write(Self.answer("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\n\r\n")) else { return }
                for _ in 0..<600 where write(piece) {}
            } else {
                guard write(Self.answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) else { return }
                let chunk = Self.answer("100000\r\n") + piece + Self.answer("\r\n")
                for _ in 0..<600 where write(chunk) {}
                _ = write(Self.answer("0\r\n\r\n"))
            }
        }
        defer { server.stop() }
        let reason = Self.unreachableReason(await Self.pull(server.url))
        #expect(reason?.contains("an answer larger than \(SyncTransport.maxAnswerBytes >> 20) MiB") == true, "\(reason ?? "no error")")
        // The client stopped reading: the server could not send it all (socket buffers aside).
        server.stop()
        #expect(server.bytesSent < SyncTransport.maxAnswerBytes + (64 << 20), "\(server.bytesSent) bytes sent")
    }

    @Test("A 600 MiB header is refused, not read to its end")
    func giantHeader() async throws {
        let server = try ScriptedHTTPServer { _, write in
            guard write(Self.answer("HTTP/1.1 200 OK\r\nX-Giant: ")) else { return }
            let piece = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
            for _ in 0..<600 where write(piece) {}
            _ = write(Self.answer("\r\nContent-Length: 0\r\n\r\n"))
        }
        defer { server.stop() }
        let reason = Self.unreachableReason(await Self.pull(server.url))
        // The parser refuses the head past its bound and closes the connection: either is said.
        #expect(reason?.contains("not valid HTTP") == true || reason?.contains("the connection was closed before the answer was complete") == true,
                "\(reason ?? "no error")")
        server.stop()
        #expect(server.bytesSent < 64 << 20, "\(server.bytesSent) bytes sent")
    }

    @Test("1xx interim answers are not taken as the answer")
    func interimAnswers() async throws {
        let body = #"{"rows":[],"cursor":0,"hasMore":false}"#
        let server = try ScriptedHTTPServer { _, write in
            _ = write(Self.answer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"
                                  + "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"))
        }
        defer { server.stop() }
        let result = await Self.pull(server.url)
        #expect((try? result.get()) == Data(body.utf8), "\(result)")
    }

    @Test("A complete answer on a connection the server keeps open returns at once, and the connection is reused")
    func keptOpenConnection() async throws {
        let server = try ScriptedHTTPServer { _, write in
            _ = write(Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
        }
        defer { server.stop() }
        let transport = SyncTransport(server: server.url, token: "t")
        // Without a length-delimited read, the first call waits for the close and fails after 20 s.
        for method in ["GET", "POST", "GET"] {
            let data = try await transport.send(method, SyncProtocol.pullPath, body: method == "POST" ? Data("{}".utf8) : nil, timeout: 20)
            #expect(data == Data("{}".utf8))
        }
        #expect(server.connections == 1, "\(server.connections) connections for 3 sequential requests")
    }

    #if os(Linux)
    @Test("Clients made and released one after another share one connection and the process's threads")
    func releasedClientsLeaveNothing() async throws {
        let server = try ScriptedHTTPServer { _, write in
            _ = write(Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
        }
        defer { server.stop() }
        func threads() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0 }
        _ = try await Self.pull(server.url).get()
        let before = threads()
        for _ in 0..<20 {
            let fixture = try Fixture()
            let client = try SyncClient(database: fixture.database, server: server.url, token: "t", tables: NotesSchema.tables)
            _ = try await client.transport.send("GET", SyncProtocol.pullPath)
        }
        // Other tests run meanwhile and start threads of their own: far fewer than a loop per client.
        #expect(threads() < before + 20, "\(before) threads before 20 clients, \(threads()) after")
        #expect(server.connections == 1, "\(server.connections) connections")
    }
    #endif

    @Test("%20 and %0D%0A in the server URL's path are sent encoded: one valid request line, no injected header")
    func encodedPath() async throws {
        let server = try ScriptedHTTPServer { _, write in
            _ = write(Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
        }
        defer { server.stop() }
        let base = try #require(URL(string: "http://127.0.0.1:\(server.port)/a%20b/c%0D%0AX-Injected:%201"))
        _ = try await Self.pull(base).get()
        let head = try #require(server.requestHeads.first)
        let lines = head.components(separatedBy: "\r\n")
        #expect(lines[0].hasPrefix("GET /a%20b/c%0D%0AX-Injected:%201/v1/pull?after=0 HTTP/1.1"), "\(lines[0])")
        #expect(!lines.dropFirst().contains { $0.lowercased().hasPrefix("x-injected") }, "\(lines)")
    }

    @Test("A member's and a space's names are sent with every character but the unreserved ones escaped, in the path and the query")
    func escapedNames() async throws {
        let server = try ScriptedHTTPServer { _, write in
            _ = write(Self.answer("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"))
        }
        defer { server.stop() }
        let transport = SyncTransport(server: try #require(URL(string: "http://127.0.0.1:\(server.port)")), token: "t",
                                      space: "a&b=c+d")
        // "ë" is a letter (Foundation's alphanumerics) but not an unreserved character.
        _ = try await transport.send("DELETE", SyncProtocol.memberPath(of: "family & friends/ü", user: "zoë?#%/x"))
        let line = try #require(server.requestHeads.first?.components(separatedBy: "\r\n").first)
        #expect(line == "DELETE /v1/spaces/family%20%26%20friends%2F%C3%BC/members/zo%C3%AB%3F%23%25%2Fx?space=a%26b%3Dc%2Bd HTTP/1.1",
                "\(line)")
    }

    @Test("A server that never answers: the deadline holds, and cancelling the task ends the request")
    func deadlineAndCancellation() async throws {
        let server = try ScriptedHTTPServer { _, _ in }
        defer { server.stop() }
        let reason = Self.unreachableReason(await Self.pull(server.url, timeout: 1))
        #expect(reason?.contains("no answer within the time limit") == true, "\(reason ?? "no error")")

        let request = Task { await Self.pull(server.url, timeout: 50) }
        try await Task.sleep(for: .milliseconds(200))
        request.cancel()
        let result = await request.value
        guard case .failure(let error) = result else { Issue.record("a cancelled request succeeded"); return }
        #expect(error is CancellationError, "\(error)")
    }

    @Test("Nothing listening: connection refused, at once")
    func refused() async throws {
        let server = try ScriptedHTTPServer { _, _ in }
        let url = server.url
        server.stop()
        let reason = Self.unreachableReason(await Self.pull(url))
        #expect(reason?.contains("connection refused") == true, "\(reason ?? "no error")")
    }

    @Test("A CA file that is missing or holds no certificate is named with the cause")
    func badCertificates() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/ca.pem")
        #expect(throws: SyncCertificateError.self) { try SyncTrustedCertificates(contentsOf: missing) }
        do { _ = try SyncTrustedCertificates(contentsOf: missing) } catch {
            #expect("\(error)".contains("cannot read the CA file /nonexistent/ca.pem"), "\(error)")
        }
        do { _ = try SyncTrustedCertificates(pem: "hello") } catch {
            #expect("\(error)".contains("holds no PEM certificate"), "\(error)")
        }
        do { _ = try SyncTrustedCertificates(pem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") } catch {
            #expect("\(error)".contains("certificate 1 of the given PEM text is not a valid X.509 certificate"), "\(error)")
        }
    }
}
