import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 31 item 3: libcurl (URLSession on Linux) sends `Expect: 100-continue` before a
/// body over 1 MiB and waited up to a second for an answer the server never gave.
@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    @Test("a push with Expect: 100-continue gets 100 Continue after its head, then its answer")
    func continueBeforeBody() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let body = String(decoding: try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                SyncMutation(id: 1, changes: [todo("t1", title: "Buy milk")]),
            ])), as: UTF8.self)
            let socket = try RawSocket(port: server.port)
            socket.send("POST /\(SyncProtocol.pushPath) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(a.token!)\r\n"
                        + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            // Before the body: the interim answer (the socket's receive timeout is 10 s).
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(socket.fd, &buffer, buffer.count, 0)
            let interim = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim)")
            socket.send(body)
            var answer = interim.hasPrefix("HTTP/1.1 100") ? "" : interim
            while !answer.contains("\"acknowledged\":[1]") {
                let count = recv(socket.fd, &buffer, buffer.count, 0)
                if count <= 0 { break }
                answer += String(decoding: buffer.prefix(count), as: UTF8.self)
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(300))")
            #expect(answer.contains("\"acknowledged\":[1]"), "\(answer.prefix(300))")
        }
    }
}
