import Foundation
import Synchronization
import SwiduxSyncWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A minimal sync client over URLSession and the wire types: one client id, one token,
/// mutation ids counted from 1.
final class SyncHTTP: @unchecked Sendable {
    let base: URL
    let token: String?
    let clientID: String
    let session: URLSession
    /// The shared space a JWT user's requests name (the query parameter `space`); nil: the token's own.
    let space: String?
    private let nextMutation = Mutex<Int64>(1)

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        configuration.httpMaximumConnectionsPerHost = 16
        return URLSession(configuration: configuration)
    }()

    init(base: URL, token: String?, clientID: String = UUID().uuidString, session: URLSession = SyncHTTP.session, space: String? = nil) {
        self.space = space
        self.session = session
        self.base = base
        self.token = token
        self.clientID = clientID
    }

    /// A client of the same server with another token (or none).
    func with(token: String?) -> SyncHTTP { SyncHTTP(base: base, token: token, clientID: clientID, session: session, space: space) }

    /// The same client over its own URLSession, with up to `connections` connections.
    func with(connections: Int) -> SyncHTTP {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        configuration.httpMaximumConnectionsPerHost = connections
        return SyncHTTP(base: base, token: token, clientID: clientID, session: URLSession(configuration: configuration), space: space)
    }

    struct Answer {
        var status: Int
        var body: Data
        /// The answer's `Retry-After` header, if any.
        var retryAfter: String? = nil
        var error: String? { try? JSONDecoder().decode(SyncErrorBody.self, from: body).error }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(type, from: body) }
    }

    func raw(_ method: String, _ path: String, body: Data? = nil, authorization: String? = nil) async throws -> Answer {
        // `path` may carry a query: append it as text (appendingPathComponent would escape the `?`).
        var request = URLRequest(url: url(path))
        request.httpMethod = method
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        else if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        return Answer(status: http?.statusCode ?? -1, body: data, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"))
    }

    /// The URL of `path` (which may carry a query), naming ``space`` if set.
    func url(_ path: String) -> URL {
        var text = base.absoluteString + "/" + path
        if let space {
            text += (path.contains("?") ? "&" : "?") + "space=" + space.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        return URL(string: text)!
    }

    func declare(_ tables: [String]) async throws {
        let answer = try await raw("PUT", SyncProtocol.tablesPath, body: try JSONEncoder().encode(TablesRequest(tables: tables)))
        guard answer.status == 204 else { throw SyncHTTPError("PUT tables: \(answer.status) \(answer.error ?? "")") }
    }

    /// Takes the next mutation id.
    func mutationID() -> Int64 { nextMutation.withLock { next in defer { next += 1 }; return next } }

    /// Pushes `changes` as the next mutation; throws unless 200.
    @discardableResult
    func push(_ changes: [SyncChange]) async throws -> PushResponse {
        try await push(PushRequest(clientID: clientID, mutations: [SyncMutation(id: mutationID(), changes: changes)]))
    }

    func push(_ request: PushRequest) async throws -> PushResponse {
        let answer = try await pushAnswer(try JSONEncoder().encode(request))
        guard answer.status == 200 else { throw SyncHTTPError("push: \(answer.status) \(answer.error ?? "")") }
        return try answer.decode(PushResponse.self)
    }

    func pushAnswer(_ body: Data) async throws -> Answer { try await raw("POST", SyncProtocol.pushPath, body: body) }

    func pullAnswer(after: Int64 = 0, limit: Int? = nil, wait: Int? = nil) async throws -> Answer {
        var query = "?after=\(after)"
        if let limit { query += "&limit=\(limit)" }
        if let wait { query += "&wait=\(wait)" }
        var request = URLRequest(url: url(SyncProtocol.pullPath + query))
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        return Answer(status: http?.statusCode ?? -1, body: data, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"))
    }

    func pull(after: Int64 = 0, limit: Int? = nil, wait: Int? = nil) async throws -> PullResponse {
        let answer = try await pullAnswer(after: after, limit: limit, wait: wait)
        guard answer.status == 200 else { throw SyncHTTPError("pull: \(answer.status) \(answer.error ?? "")") }
        return try answer.decode(PullResponse.self)
    }

    /// Pulls every page after `cursor`.
    func pullAll(after cursor: Int64 = 0, limit: Int? = nil) async throws -> [SyncRow] {
        var rows: [SyncRow] = []
        var cursor = cursor
        while true {
            let page = try await pull(after: cursor, limit: limit)
            rows += page.rows
            cursor = page.cursor
            if !page.hasMore { return rows }
        }
    }
}

struct SyncHTTPError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A todo change with a title.
func todo(_ id: String, _ kind: SyncChange.Kind = .insert, title: String? = nil, base: Int64? = nil) -> SyncChange {
    SyncChange(table: "todo", id: .text(id), kind: kind,
               columns: kind == .delete ? nil : ["title": .text(title ?? id), "done": .integer(0)], baseVersion: base)
}
