import Foundation
import Swidux
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on 127.0.0.1 that accepts connections and never answers (a hung server).
///
/// ```swift
/// let server = try HungServer()
/// defer { server.stop() }
/// // point a client at server.url and watch it time out
/// ```
public final class HungServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let descriptor: Int32
    private let lock = LockedValue(())
    private var accepted: [Int32] = []
    private var stopped = false

    /// Starts listening and accepting on a thread of its own.
    public init() throws {
        let listening = try LoopbackListener()
        port = listening.port
        descriptor = listening.descriptor
        listening.acceptEach { [weak self] connection in
            guard let self else { return false }
            return self.lock.withLock { (_: inout Void) -> Bool in
                if self.stopped { return false }
                self.accepted.append(connection)
                return true
            }
        }
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Closes the listening socket and every accepted connection.
    public func stop() {
        let connections = lock.withLock { (_: inout Void) -> [Int32]? in
            if stopped { return nil }
            stopped = true
            defer { accepted.removeAll() }
            return accepted
        }
        guard let connections else { return }
        // The accepting thread closes the listening socket once its accept fails.
        shutdown(descriptor, Int32(SHUT_RDWR))
        for connection in connections { close(connection) }
    }

    deinit { stop() }
}
