import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket on 127.0.0.1 at a port the system picks, the part every test
/// server here shares.
///
/// ```swift
/// let listener = try LoopbackListener()
/// let connection = accept(listener.descriptor, nil, nil)
/// ```
public struct LoopbackListener: Sendable {
    /// The listening socket. Its owner stops it with `shutdown`; the accepting thread of
    /// ``acceptEach(_:done:)`` closes it.
    public let descriptor: Int32
    /// The port the system gave the socket.
    public let port: UInt16

    /// Binds and listens (backlog 64); throws if the system refuses a socket or a port.
    public init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
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
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Accepts connections on a thread of its own and hands each to `take`, until `accept`
    /// fails (the socket was shut down) or `take` returns false (that connection is closed
    /// here); then the listening socket is closed and `done` runs once.
    ///
    /// The socket is closed on this thread, never by whoever stops it: a descriptor closed
    /// under the accepting thread could be reused by another socket (a child process's, another
    /// test's) before the next `accept`, and a second close would close that one.
    ///
    /// ```swift
    /// listener.acceptEach { connection in
    ///     Thread.detachNewThread { serve(connection) }
    ///     return true
    /// }
    /// ```
    public func acceptEach(_ take: @escaping @Sendable (Int32) -> Bool, done: @escaping @Sendable () -> Void = {}) {
        let descriptor = descriptor
        Thread.detachNewThread {
            defer {
                close(descriptor)
                done()
            }
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                guard take(connection) else { close(connection); return }
            }
        }
    }
}
