import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on 127.0.0.1 that accepts connections and never answers (a hung server).
final class HungServer: @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32
    private let lock = NSLock()
    private var accepted: [Int32] = []
    private var stopped = false

    init() throws {
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
        let listener = descriptor
        Thread.detachNewThread { [weak self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                guard let self else { close(connection); return }
                let kept = self.lock.withLock { () -> Bool in
                    if self.stopped { return false }
                    self.accepted.append(connection)
                    return true
                }
                if !kept { close(connection); return }
            }
        }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Closes the listening socket and every accepted connection.
    func stop() {
        let connections = lock.withLock { () -> [Int32]? in
            if stopped { return nil }
            stopped = true
            defer { accepted.removeAll() }
            return accepted
        }
        guard let connections else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
        for connection in connections { close(connection) }
    }

    deinit { stop() }
}
