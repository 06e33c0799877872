import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Limits by user, not only by address: many long polls of one user from one address are
/// answered (429 with `Retry-After` past the user's limit), never reset; another user at that
/// address is not affected; an address's unauthenticated connections are still limited.
@Suite("Request limits")
struct RequestLimitTests {
    /// How many long polls the first test opens; `SWIDUX_USER_LIMIT_POLLS=2000` for the full size.
    static let polls = ProcessInfo.processInfo.environment["SWIDUX_USER_LIMIT_POLLS"].flatMap(Int.init) ?? 300

    @Test("long polls of one user from one address: none reset, 429 with Retry-After past the user's limit; another user answers",
          .timeLimit(.minutes(3)))
    func oneUserManyPolls() async throws {
        let polls = Self.polls, limit = Self.polls * 3 / 4, wait = 15
        let database = try await PostgresCluster.shared().createDatabase()
        let server = try await ServerProcess.start(postgres: database, arguments: [
            "--max-connections-per-address", "16", "--max-requests-per-user", String(limit),
            "--max-requests-per-space", String(polls * 2), "--retry-after", "3"])
        let token = try await ServerProcess.createToken(postgres: database, space: "home")
        let other = try await ServerProcess.createToken(postgres: database, space: "work")
        try await SyncHTTP(base: server.url, token: token).declare(["todo"])
        try await SyncHTTP(base: server.url, token: other).declare(["todo"])

        // Each poll on its own connection from 127.0.0.1, far past the address's 16.
        var sockets: [Answering] = []
        for _ in 0..<polls {
            let socket = try RawSocket(port: server.port)
            socket.send("GET /\(SyncProtocol.pullPath)?after=0&wait=\(wait) HTTP/1.1\r\nHost: x\r\n"
                        + "Authorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            sockets.append(Answering(socket))
        }
        // The polls past the user's limit are answered at once; the others wait.
        let sent = ContinuousClock.now
        while sockets.filter({ $0.status == 429 }).count < polls - limit, ContinuousClock.now - sent < .seconds(10) {
            for socket in sockets { socket.read() }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(sockets.filter { $0.status == 429 }.count == polls - limit)
        #expect(!sockets.contains { $0.reset }, "a connection was reset")

        // Meanwhile another user from the same address is served, and the first user's push
        // is refused as over the limit, changing nothing.
        let otherAnswer = rawRequest(port: server.port, "GET /\(SyncProtocol.pullPath)?after=0", token: other)
        #expect(otherAnswer.hasPrefix("HTTP/1.1 200"), "\(otherAnswer.prefix(300))")
        let push = try JSONEncoder().encode(PushRequest(clientID: "c", mutations: [SyncMutation(id: 1, changes: [todo("1")])]))
        let pushAnswer = rawRequest(port: server.port, "POST /\(SyncProtocol.pushPath)", token: token, body: push)
        #expect(pushAnswer.hasPrefix("HTTP/1.1 429"), "\(pushAnswer.prefix(300))")

        // Every poll ends with an answer: 200 after its wait, or the 429.
        let ending = ContinuousClock.now
        while sockets.contains(where: { !$0.closed }), ContinuousClock.now - ending < .seconds(wait + 15) {
            for socket in sockets { socket.read() }
            try await Task.sleep(for: .milliseconds(200))
        }
        let statuses = Dictionary(grouping: sockets, by: { $0.status ?? 0 }).mapValues(\.count)
        print("request limits: \(polls) long polls of one user, limit \(limit): answers by status \(statuses)")
        #expect(statuses == [200: limit, 429: polls - limit], "\(statuses)")
        #expect(!sockets.contains { $0.reset }, "a connection was reset")
        for refused in sockets where refused.status == 429 {
            #expect(refused.text.lowercased().contains("retry-after: 3\r\n"), "\(refused.text.prefix(400))")
            let body = refused.text.components(separatedBy: "\r\n\r\n").dropFirst().joined()
            let error = try? JSONDecoder().decode(SyncErrorBody.self, from: Data(body.utf8))
            #expect(error?.requestID?.isEmpty == false, "\(body.prefix(300))")
        }
        // Nothing was changed by the refused push.
        let rows = try await SyncHTTP(base: server.url, token: token).pullAll()
        #expect(rows.isEmpty)
        await server.stop()
    }

    @Test("an address's connections that do not authenticate are still limited; ones that do are not", .timeLimit(.minutes(1)))
    func unauthenticatedFlood() async throws {
        let database = try await PostgresCluster.shared().createDatabase()
        let server = try await ServerProcess.start(postgres: database, arguments: ["--max-connections-per-address", "10"])
        let token = try await ServerProcess.createToken(postgres: database, space: "home")
        try await SyncHTTP(base: server.url, token: token).declare(["todo"])

        // 40 silent connections from one address: the 30 past its 10 are closed within the probation window.
        let silent = try (0..<40).map { _ in try RawSocket(port: server.port, from: "127.0.0.3") }
        let opened = ContinuousClock.now
        while silent.filter(\.isClosedByPeer).count < 30, ContinuousClock.now - opened < .seconds(5) {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(silent.filter(\.isClosedByPeer).count == 30)

        // Past the limit, a request without a token is closed at once, and one with a wrong token is answered 429.
        let anonymous = try RawSocket(port: server.port, from: "127.0.0.3")
        anonymous.send("GET /\(SyncProtocol.pullPath)?after=0 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(anonymous.readAnswer().isEmpty)
        let wrong = rawRequest(port: server.port, "GET /\(SyncProtocol.pullPath)?after=0", token: "not-a-token", from: "127.0.0.3",
                               keepAlive: true)
        #expect(wrong.hasPrefix("HTTP/1.1 429"), "\(wrong.prefix(300))")
        #expect(wrong.lowercased().contains("retry-after: "), "\(wrong.prefix(300))")

        // A valid token from that address is served, though its address is at its limit.
        let valid = rawRequest(port: server.port, "GET /\(SyncProtocol.pullPath)?after=0", token: token, from: "127.0.0.3")
        #expect(valid.hasPrefix("HTTP/1.1 200"), "\(valid.prefix(300))")
        // Within its limit, a wrong token is told why (401), as before.
        let elsewhere = rawRequest(port: server.port, "GET /\(SyncProtocol.pullPath)?after=0", token: "not-a-token", from: "127.0.0.4")
        #expect(elsewhere.hasPrefix("HTTP/1.1 401"), "\(elsewhere.prefix(300))")
        await server.stop()
    }

    @Test("a long poll whose client goes away (closes, or closes its sending side) answers at once and frees its slot",
          .timeLimit(.minutes(1)))
    func goneClientFreesSlot() async throws {
        let database = try await PostgresCluster.shared().createDatabase()
        let server = try await ServerProcess.start(postgres: database, arguments: ["--max-requests-per-user", "2"])
        let token = try await ServerProcess.createToken(postgres: database, space: "home")
        try await SyncHTTP(base: server.url, token: token).declare(["todo"])
        let poll = "GET /\(SyncProtocol.pullPath)?after=0&wait=60 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n"
        var closing: RawSocket? = try RawSocket(port: server.port)
        let halfClosing = try RawSocket(port: server.port)
        closing?.send(poll)
        halfClosing.send(poll)
        // Both polls hold the user's two slots: a third request is refused. (The first third
        // waits for the polls to arrive: one sent with them could take a slot a poll needs.)
        try await Task.sleep(for: .seconds(1))
        let sent = ContinuousClock.now
        var third = ""
        repeat {
            third = rawRequest(port: server.port, "GET /\(SyncProtocol.pullPath)?after=0", token: token)
            if !third.hasPrefix("HTTP/1.1 429") { try await Task.sleep(for: .milliseconds(100)) }
        } while !third.hasPrefix("HTTP/1.1 429") && ContinuousClock.now - sent < .seconds(10)
        #expect(third.hasPrefix("HTTP/1.1 429"), "\(third.prefix(300))")
        #expect(!halfClosing.isClosedByPeer, "the poll was answered before its client went away")

        // A client that closes only its sending side still reads the answer: the empty page, now.
        shutdown(halfClosing.fd, Int32(SHUT_WR))
        let answer = halfClosing.readAnswer()
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(300))")
        #expect(answer.contains("\"rows\":[]"), "\(answer.prefix(600))")
        closing = nil
        // Both slots are free long before the polls' 60 s: a new long poll waits (it was not
        // refused) while another request of the user is served.
        let gone = ContinuousClock.now
        var freed = false
        while !freed, ContinuousClock.now - gone < .seconds(20) {
            let again = try RawSocket(port: server.port)
            again.send(poll)
            try await Task.sleep(for: .milliseconds(500))
            let pull = rawRequest(port: server.port, "GET /\(SyncProtocol.pullPath)?after=0", token: token)
            var byte: UInt8 = 0
            let answered = recv(again.fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) > 0
            freed = pull.hasPrefix("HTTP/1.1 200") && !answered
        }
        #expect(freed, "the user's slots were not given back")
        _ = closing
        await server.stop()
    }

    /// One request on its own connection; the whole answer. With `keepAlive` the request
    /// does not ask to close: the answer ends when the server closes the connection.
    private func rawRequest(port: Int, _ line: String, token: String, body: Data? = nil, from source: String = "127.0.0.1",
                            keepAlive: Bool = false) -> String {
        guard let socket = try? RawSocket(port: port, from: source) else { return "" }
        var head = "\(line) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
        if !keepAlive { head += "Connection: close\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        socket.send(head + "\r\n" + (body.map { String(decoding: $0, as: UTF8.self) } ?? ""))
        return socket.readAnswer()
    }
}

/// A connection whose answer is read without waiting, a piece at a time.
private final class Answering {
    let socket: RawSocket
    private var data = Data()
    private(set) var closed = false
    /// The connection was reset (not closed after an answer).
    private(set) var reset = false

    init(_ socket: RawSocket) { self.socket = socket }

    var text: String { String(decoding: data, as: UTF8.self) }

    /// The answer's status, once its status line arrived.
    var status: Int? {
        let line = text.prefix(12)
        guard line.count == 12, line.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(line.dropFirst(9))
    }

    func read() {
        guard !closed else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { data.append(contentsOf: buffer[0..<count]); continue }
            if count == 0 { closed = true }
            if count < 0, errno != EAGAIN, errno != EWOULDBLOCK { closed = true; reset = true }
            return
        }
    }
}
