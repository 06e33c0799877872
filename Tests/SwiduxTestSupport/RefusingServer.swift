import Foundation
import Swidux
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP server on 127.0.0.1 that answers every request with one status (401 by default:
/// a refused token) and counts the requests, so that a test can see a client stop sending a
/// token the server refused.
///
/// ```swift
/// let server = try RefusingServer()
/// defer { server.stop() }
/// // sync against server.url, then check server.requests
/// ```
public final class RefusingServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let status: String
    private let message: String
    private let descriptor: Int32
    private let lock = LockedValue(())
    private var count = 0
    private var stopped = false

    /// Starts listening; every request is answered with `status` and the body `message`.
    public init(status: String = "401 Unauthorized", message: String = "{\"error\":\"unknown token\"}") throws {
        self.status = status
        self.message = message
        let listening = try LoopbackListener()
        port = listening.port
        descriptor = listening.descriptor
        listening.acceptEach { [weak self] connection in
            guard let server = self else { return false }
            Thread.detachNewThread { server.answer(connection) }
            return true
        }
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Requests answered so far.
    public var requests: Int { lock.withLock { _ in count } }

    /// Reads each request (headers, then — after a 100 Continue when asked and the body is not there yet — a body of
    /// Content-Length bytes) and answers with the status.
    private func answer(_ connection: Int32) {
        defer { close(connection) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let blank = Array("\r\n\r\n".utf8)
            let found = received.count < 4 ? nil : (0...(received.count - 4)).first { received[$0..<($0 + 4)].elementsEqual(blank) }
            guard let start = found else {
                let n = read(connection, &buffer, buffer.count)
                if n <= 0 { return }
                received += buffer[0..<n]
                if received.first == 0x16 {
                    // A TLS handshake record (an https:// client): answered as any HTTP server does.
                    let refusal = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                    _ = refusal.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                    return
                }
                continue
            }
            let end = start..<(start + 4)
            let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
            let bodyLength = head.split(separator: "\r\n")
                .first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if head.contains("expect: 100-continue"), received.count < end.upperBound + bodyLength {
                let goOn = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                guard goOn.withUnsafeBytes({ write(connection, $0.baseAddress, $0.count) }) == goOn.count else { return }
            }
            while received.count < end.upperBound + bodyLength {
                let n = read(connection, &buffer, buffer.count)
                if n <= 0 { return }
                received += buffer[0..<n]
            }
            received.removeFirst(end.upperBound + bodyLength)
            lock.withLock { _ in count += 1 }
            let response = Array("HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(message.utf8.count)\r\n\r\n\(message)".utf8)
            let written = response.withUnsafeBytes({ write(connection, $0.baseAddress, $0.count) })
            // A client that asked to close reads the answer to the end of the connection.
            guard written == response.count, !head.contains("connection: close") else { return }
        }
    }

    /// Stops listening (connections end with their clients). Safe to call more than once:
    /// `deinit` calls it again after a test's `defer`.
    public func stop() {
        let first = lock.withLock { (_: inout Void) -> Bool in
            defer { stopped = true }
            return !stopped
        }
        // The accepting thread closes the socket once its accept fails: closing it here, twice,
        // closed whatever descriptor had taken its number in between (a child process's).
        if first { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }
}
