import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP server on 127.0.0.1 that answers every request with one status (401 by default:
/// a refused token) and counts the requests, so that a test can see a client stop sending a
/// token the server refused.
final class RefusingServer: @unchecked Sendable {
    let port: UInt16
    private let status: String
    private let message: String
    private let descriptor: Int32
    private let lock = NSLock()
    private var count = 0

    init(status: String = "401 Unauthorized", message: String = "{\"error\":\"unknown token\"}") throws {
        self.status = status
        self.message = message
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else { close(descriptor); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.descriptor = descriptor
        Thread.detachNewThread { [weak self] in
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                guard let server = self else { close(connection); return }
                Thread.detachNewThread { server.answer(connection) }
            }
        }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Requests answered so far.
    var requests: Int { lock.withLock { count } }

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
            lock.withLock { count += 1 }
            let response = Array("HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(message.utf8.count)\r\n\r\n\(message)".utf8)
            let written = response.withUnsafeBytes({ write(connection, $0.baseAddress, $0.count) })
            // A client that asked to close reads the answer to the end of the connection.
            guard written == response.count, !head.contains("connection: close") else { return }
        }
    }

    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    deinit { stop() }
}
