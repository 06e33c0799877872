#if canImport(Glibc)
import Foundation
import FoundationNetworking
import Glibc

/// HTTP/1.1 over a plain TCP socket, for `http://` servers on Linux: FoundationNetworking's
/// `URLSession` busy-loops while it waits for an answer (a core at 60–100 % for a long poll
/// or a hung server) and does not hold the request's timeout. One connection per request
/// (`Connection: close`), blocking I/O on its own thread with `poll(2)` deadlines: waiting
/// costs no CPU, the whole exchange ends by `timeout`, and cancelling the calling task
/// shuts the socket down at once.
enum PlainHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        let code: URLError.Code
        let description: String
        var urlError: URLError { URLError(code, userInfo: [NSLocalizedDescriptionKey: description]) }
    }

    /// Sends `request` (an `http` URL) and returns the answer.
    static func send(_ request: URLRequest, timeout: TimeInterval) async throws -> (Data, HTTPURLResponse) {
        let socket = SocketBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try exchange(request, deadline: Date(timeIntervalSinceNow: timeout), socket: socket) })
                }
            }
        } onCancel: {
            socket.cancel()
        }
    }

    private static func exchange(_ request: URLRequest, deadline: Date, socket box: SocketBox) throws -> (Data, HTTPURLResponse) {
        guard let url = request.url, let host = url.host else { throw Failure(code: .badURL, description: "no host in the URL") }
        let port = url.port ?? 80
        let descriptor = try connect(host: host, port: port, deadline: deadline)
        guard box.set(descriptor) else { close(descriptor); throw CancellationError() }
        defer { box.close() }

        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var head = "\(request.httpMethod ?? "GET") \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in request.allHTTPHeaderFields ?? [:] where name.lowercased() != "host" && name.lowercased() != "connection" {
            head += "\(name): \(value)\r\n"
        }
        let body = request.httpBody ?? Data()
        if !body.isEmpty || request.httpMethod != "GET" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        // The head, then the body as it is (joining them copied every push's
        // megabytes once more); `MSG_MORE` holds the head until the body follows it.
        try write(Data(head.utf8), to: descriptor, more: !body.isEmpty, deadline: deadline)
        if !body.isEmpty { try write(body, to: descriptor, deadline: deadline) }

        var answer = try readToEnd(descriptor, deadline: deadline)
        if box.isCancelled { throw CancellationError() }
        return try parse(&answer, url: url)
    }

    private static func connect(host: String, port: Int, deadline: Date) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw Failure(code: .cannotFindHost, description: "cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard descriptor >= 0 else { lastError = errno; continue }
            if Glibc.connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return descriptor }
            if errno == EINPROGRESS, try wait(descriptor, for: Int16(POLLOUT), deadline: deadline) {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
                if error == 0 { return descriptor }
                lastError = error
            } else {
                lastError = errno == EINPROGRESS ? ETIMEDOUT : errno
            }
            close(descriptor)
        }
        if lastError == ETIMEDOUT { throw Failure(code: .timedOut, description: "connecting to \(host):\(port) timed out") }
        throw Failure(code: .cannotConnectToHost, description: "cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    /// Waits until `descriptor` is ready for `events`; `false` on an error condition.
    /// Throws when the deadline passes.
    private static func wait(_ descriptor: Int32, for events: Int16, deadline: Date) throws -> Bool {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Failure(code: .timedOut, description: "the request timed out") }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining * 1000, 60_000)) + 1)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if ready > 0 { return entry.revents & events != 0 || entry.revents & Int16(POLLHUP) != 0 }
        }
    }

    /// Sends all of `data`; with `more`, tells the kernel that more follows (`MSG_MORE`).
    private static func write(_ data: Data, to descriptor: Int32, more: Bool = false, deadline: Date) throws {
        var offset = 0
        let flags = Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0)
        while offset < data.count {
            guard try wait(descriptor, for: Int16(POLLOUT), deadline: deadline) else { throw closed() }
            let written = data.withUnsafeBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress! + offset, data.count - offset, flags)
            }
            if written < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw closed()
            }
            offset += written
        }
    }

    private static func readToEnd(_ descriptor: Int32, deadline: Date) throws -> Data {
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            guard try wait(descriptor, for: Int16(POLLIN), deadline: deadline) else { throw closed() }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return answer }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw closed()
            }
            answer.append(contentsOf: buffer[0..<count])
        }
    }

    private static func closed() -> Failure {
        Failure(code: .networkConnectionLost, description: "the connection was closed: \(String(cString: strerror(errno)))")
    }

    /// The status, the headers and the body of `answer`, whose bytes become the body's
    /// (`Data.range(of:)` copied a whole answer into an `NSData`, and the body was
    /// copied again; a first pull's pages are megabytes).
    private static func parse(_ answer: inout Data, url: URL) throws -> (Data, HTTPURLResponse) {
        guard let end = headEnd(answer) else {
            throw Failure(code: .badServerResponse, description: "the server closed the connection without a complete answer")
        }
        let lines = String(decoding: answer[answer.startIndex..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first?.split(separator: " ", maxSplits: 2)
        guard let status, status.count >= 2, let code = Int(status[1]) else {
            throw Failure(code: .badServerResponse, description: "not an HTTP answer")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        answer.removeSubrange(answer.startIndex..<(end + 4))
        var body = answer
        let field = { (name: String) in headers.first { $0.key.lowercased() == name }?.value }
        if field("transfer-encoding")?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let length = field("content-length").flatMap(Int.init), length <= body.count {
            body = body.prefix(length)
        }
        guard let response = HTTPURLResponse(url: url, statusCode: code, httpVersion: "HTTP/1.1", headerFields: headers) else {
            throw Failure(code: .badServerResponse, description: "an answer with status \(code) that cannot be read")
        }
        return (body, response)
    }

    /// The index where `data`'s head ends, before its `\r\n\r\n`; nil when there is none.
    static func headEnd(_ data: Data) -> Data.Index? {
        let crlf: (UInt8, UInt8) = (13, 10)
        return data.withUnsafeBytes { bytes -> Data.Index? in
            guard bytes.count >= 4 else { return nil }
            var index = 0
            while index <= bytes.count - 4 {
                if bytes[index] == crlf.0, bytes[index + 1] == crlf.1, bytes[index + 2] == crlf.0, bytes[index + 3] == crlf.1 {
                    return data.startIndex + index
                }
                index += 1
            }
            return nil
        }
    }

    private static func dechunk(_ data: Data) throws -> Data {
        var body = Data()
        var rest = data[...]
        let newline = Data("\r\n".utf8)
        while let line = rest.range(of: newline) {
            let sizeText = String(decoding: rest[..<line.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { break }
            if size == 0 { return body }
            let start = line.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let stop = rest.index(start, offsetBy: size)
            body.append(rest[start..<stop])
            rest = rest[min(rest.endIndex, rest.index(stop, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex)...]
        }
        throw Failure(code: .badServerResponse, description: "a chunked answer that ends early")
    }
}

/// The socket of a running exchange, shut down from another thread on cancellation.
private final class SocketBox: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var cancelled = false

    /// Records the socket; `false` if the exchange was already cancelled.
    func set(_ descriptor: Int32) -> Bool {
        lock.withLock {
            if cancelled { return false }
            self.descriptor = descriptor
            return true
        }
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() {
        lock.withLock {
            cancelled = true
            if descriptor >= 0 { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    func close() {
        lock.withLock {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }
}
#endif
