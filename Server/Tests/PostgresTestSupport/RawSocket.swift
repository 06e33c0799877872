import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to a loopback port from a chosen loopback source address
/// (127.0.0.2 is another client address than 127.0.0.1), for requests URLSession cannot
/// make: half-sent ones, many at once, a TLS handshake never finished.
///
/// ```swift
/// let socket = try RawSocket(port: server.port)
/// socket.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
/// print(socket.readAnswer())
/// ```
public final class RawSocket {
    /// Why a connection could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The socket's file descriptor, closed when the object goes.
    public let fd: Int32

    /// Connects to 127.0.0.1:`port` from `source` (10 s read timeout).
    public init(port: Int, from source: String = "127.0.0.1") throws {
        // Close-on-exec: child processes (a PostgreSQL restarted meanwhile) must not inherit them.
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Self.withAddress(source, 0, { bind(fd, $0, $1) }) == 0 else { close(fd); throw Failure("bind \(source): errno \(errno)") }
        guard Self.withAddress("127.0.0.1", port, { connect(fd, $0, $1) }) == 0 else {
            close(fd); throw Failure("connect: errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// Sends `text` (what is sent is not checked: the server may have closed already).
    public func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// Whether the server closed the connection (end of stream or reset), without waiting;
    /// whatever it answered before is read and dropped.
    public var isClosedByPeer: Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }

    /// Reads until the server closes the connection or `Connection: close` answers end (10 s at most).
    public func readAnswer() -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func withAddress(_ host: String, _ port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
