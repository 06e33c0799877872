import Foundation
import Swidux
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on 127.0.0.1 that answers each request with what a test writes, byte for
/// byte (a hostile or broken HTTP server), and records what it received. A connection
/// stays open after an answer, for the next request, until the client closes it.
///
/// ```swift
/// let server = try ScriptedHTTPServer { _, write in
///     _ = write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".utf8))
/// }
/// defer { server.stop() }
/// ```
public final class ScriptedHTTPServer: @unchecked Sendable {
    /// Writes bytes to the client; false once the client has closed the connection.
    public typealias Write = (Data) -> Bool
    /// Answers the request whose head (request line and headers, as text) is given.
    public typealias Answer = @Sendable (_ head: String, _ write: Write) -> Void

    /// The port it listens on.
    public let port: UInt16
    private let descriptor: Int32
    private let lock = LockedValue(())
    private var open: [Int32] = []
    private var heads: [String] = []
    private var accepted = 0
    private var sent = 0
    private var stopped = false

    /// Starts listening; each connection is served on a thread of its own by `answer`.
    public init(answer: @escaping Answer) throws {
        let listening = try LoopbackListener()
        port = listening.port
        descriptor = listening.descriptor
        listening.acceptEach { [weak self] connection in
            guard let self, self.keep(connection) else { return false }
            Thread.detachNewThread { self.serve(connection, answer: answer) }
            return true
        }
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The heads of the requests received so far, in order.
    public var requestHeads: [String] { lock.withLock { _ in heads } }
    /// The connections accepted so far.
    public var connections: Int { lock.withLock { _ in accepted } }
    /// The bytes written to clients so far.
    public var bytesSent: Int { lock.withLock { _ in sent } }

    private func keep(_ connection: Int32) -> Bool {
        lock.withLock { _ in
            if stopped { return false }
            open.append(connection)
            accepted += 1
            return true
        }
    }

    private func serve(_ connection: Int32, answer: Answer) {
        defer {
            // Forgotten first, so that stop() cannot shut down a reused descriptor.
            lock.withLock { _ in open.removeAll { $0 == connection } }
            close(connection)
        }
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // A head, then a body of Content-Length bytes.
            var headEnd: Range<Data.Index>?
            while headEnd == nil {
                headEnd = buffer.range(of: Data("\r\n\r\n".utf8))
                if headEnd != nil { break }
                let count = recv(connection, &chunk, chunk.count, 0)
                guard count > 0 else { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            guard let end = headEnd else { return }
            let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.distance(from: end.upperBound, to: buffer.endIndex) < length {
                let count = recv(connection, &chunk, chunk.count, 0)
                guard count > 0 else { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            buffer = Data(buffer[buffer.index(end.upperBound, offsetBy: length)...])
            lock.withLock { _ in heads.append(head) }
            answer(head) { data in self.write(data, to: connection) }
        }
    }

    private func write(_ data: Data, to connection: Int32) -> Bool {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { bytes in
                send(connection, bytes.baseAddress! + offset, data.count - offset, Self.noSignal)
            }
            guard written > 0 else { return false }
            offset += written
            lock.withLock { _ in sent += written }
        }
        return true
    }

    #if canImport(Glibc)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0
    #endif

    /// Closes the listening socket and every connection.
    public func stop() {
        let connections = lock.withLock { (_: inout Void) -> [Int32]? in
            if stopped { return nil }
            stopped = true
            defer { open.removeAll() }
            return open
        }
        guard let connections else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }
}
