import Foundation
import SwiduxSyncWire

/// The HTTP side of a ``SyncClient``: the platform's HTTP client (``HTTPExchange``), the
/// bearer token, and the mapping of answers to ``SyncError``.
struct SyncTransport: Sendable {
    let server: URL
    let token: String
    /// The shared space every request names (query parameter `space`); `nil`: the token's own.
    let space: String?
    let exchange: HTTPExchange
    /// Told of every request that reached the server or not: an answer after a failure to
    /// reach it ends the retry waits of continuous sync.
    let watch: NetworkWatch?

    /// The longest answer read: a pull page (the server's page bound, at most a push's 16 MiB,
    /// and its last row, which a push could make as large as a whole request) with 1 MiB of
    /// headroom. A longer answer is refused before it fills the memory.
    static let maxAnswerBytes = 2 * SyncProtocol.maxBodyBytes + (1 << 20)

    init(server: URL, token: String, space: String? = nil, trusting certificates: SyncTrustedCertificates? = nil, watch: NetworkWatch? = nil) {
        self.server = server
        self.token = token
        self.space = space
        self.watch = watch
        exchange = HTTPExchange(server: server, trusting: certificates)
    }

    /// Sends one request; the answer's body when the status is 2xx. `path` is percent-encoded
    /// already (a space's name in a members path may hold any character).
    func send(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, timeout: TimeInterval = 30) async throws -> Data {
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var url = URL(string: base + "/" + path) ?? server.appendingPathComponent(path)
        var query = query
        if let space { query.append(URLQueryItem(name: "space", value: space)) }
        if !query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            // Every character but the unreserved ones escaped: `queryItems` leaves `&`, `=` and
            // `+` as they are, and a space's name may hold them.
            components.percentEncodedQueryItems = query.map {
                URLQueryItem(name: $0.name, value: $0.value.map(SyncProtocol.escaped))
            }
            url = components.url ?? url
        }
        var headers = [("Authorization", "Bearer \(token)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let status: Int, data: Data, retryAfter: String?
        do {
            (status, data, retryAfter) = try await exchange.send(method, url, headers: headers, body: body, timeout: .seconds(timeout),
                                                     maxBodyBytes: Self.maxAnswerBytes)
        } catch SyncError.unreachable(let url, let underlying) {
            watch?.unreachable()
            throw SyncError.unreachable(url, underlying: underlying)
        }
        watch?.answered()
        switch status {
        case 200..<300:
            return data
        default:
            let body = try? JSONDecoder().decode(SyncErrorBody.self, from: data)
            // The server's reason tells an expired sign-in from a revoked token.
            if status == 401 { throw SyncError.unauthorized(String((body?.error ?? "").prefix(500))) }
            let message = body?.error ?? String(decoding: data.prefix(500), as: UTF8.self)
            if status == 429 { throw ServerBusy(message: message, retryAfter: retryAfter.flatMap { ServerBusy.retryAfter($0) }) }
            if let code = body?.code { throw CodedRefusal(code: code, status: status, message: message) }
            throw SyncError.rejected(status: status, message: message)
        }
    }

    /// Sends and decodes a JSON answer.
    func send<Answer: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
                                 timeout: TimeInterval = 30, as type: Answer.Type) async throws -> Answer {
        let data = try await send(method, path, query: query, body: body, timeout: timeout)
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw SyncError.rejected(status: 200, message: "an answer that is not a \(Answer.self): \(error)")
        }
    }

    /// Sends and reads the answer with `read` (``WireReader``'s fast paths).
    func send<Answer>(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
                      timeout: TimeInterval = 30, reading read: (Data) throws -> Answer) async throws -> Answer {
        let data = try await send(method, path, query: query, body: body, timeout: timeout)
        do {
            return try read(data)
        } catch {
            throw SyncError.rejected(status: 200, message: "an answer that is not a \(Answer.self): \(error)")
        }
    }
}

/// A refusal the client acts on (409 with a ``SyncErrorBody/Code``); ``SyncClient`` turns
/// one it does not handle into ``SyncError/rejected(status:message:)``.
struct CodedRefusal: Error {
    let code: SyncErrorBody.Code
    let status: Int
    let message: String

    var syncError: SyncError { .rejected(status: status, message: message) }
}
