import Foundation
import Hummingbird
import Logging
import NIOHTTP1
import PostgresNIO
import SwiduxSyncWire

/// The HTTP surface (``SwiduxSyncWire/SyncProtocol``): `POST /v1/push`, `GET /v1/pull`,
/// `PUT /v1/tables`, `GET /v1/conflicts`, each behind a bearer token. Refusals are answered with a
/// ``SwiduxSyncWire/SyncErrorBody``: 401 (token), 400 (body, table, query), 409 (a used
/// mutation id with another content, another scope: with a code), 413 (size), 503 (the
/// database is unavailable).
struct Routes: Sendable {
    let database: Database
    /// The database's identity (``Schema/identity(_:logger:)``), the first half of every scope.
    let identity: String
    let notifier: Notifier
    /// The server's logger; each request's copy of the routes carries the request's own,
    /// whose lines name the request id (`hb.request.id`).
    var logger: Logger
    /// The byte bound of a pull page (``SyncServerLimits/pullPageBytes``).
    let pullPageBytes: Int
    /// The JWTs the server accepts (``JWTConfiguration``); nil: opaque tokens only.
    let users: JWTUsers?
    let metrics: SyncServerMetrics
    let userSpaces = UserSpaces()
    /// Pushes to one space wait for each other here, holding no database connection.
    let spaceLocks = SpaceLocks()
    /// The long polls a push wakes read the same page and check their token at once: one
    /// query answers them all (``SharedReads``).
    /// Long polls also take a page read that ended in the same generation, at most
    /// ``reuseInterval`` ago: a push's ~100 answered polls come back spread over tens of ms.
    let pageReads = SharedReads<PageKey, PullPage>(keep: Routes.reuseInterval)
    let tokenChecks = SharedReads<TokenKey, Int64?>()
    /// Tokens found valid by a woken poll's check: the poll's next request needs no check
    /// while its space's generation has not moved (``ValidTokens``).
    let validTokens = ValidTokens(lifetime: Routes.reuseInterval)

    /// A page read: what is read, and the space's generation seen before reading.
    struct PageKey: Hashable, Sendable { var space: Int64; var after: Int64; var limit: Int; var tables: [String]?; var generation: UInt64 }
    /// A waiting pull's token check, after a wake that showed the space's `generation`.
    struct TokenKey: Hashable, Sendable { var token: String; var generation: UInt64 }

    func add(to router: Router<BasicRequestContext>) {
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.post(RouterPath(SyncProtocol.pushPath)) { request, context in
            try await serving(context).respond(context) { try await $0.push(request) }
        }
        router.get(RouterPath(SyncProtocol.pullPath)) { request, context in
            try await serving(context).respond(context) { try await $0.pull(request) }
        }
        router.put(RouterPath(SyncProtocol.tablesPath)) { request, context in
            try await serving(context).respond(context) { try await $0.tables(request) }
        }
        router.get(RouterPath(SyncProtocol.conflictsPath)) { request, context in
            try await serving(context).respond(context) { try await $0.conflicts(request) }
        }
    }

    /// The routes as one request sees them: logging with the request's logger.
    private func serving(_ context: BasicRequestContext) -> Routes {
        var routes = self
        routes.logger = context.logger
        return routes
    }

    /// `GET /v1/conflicts?client=<id>&after=<n>&limit=<n>`: the conflicts of the token's space
    /// whose replaced value the client wrote.
    private func conflicts(_ request: Request) async throws -> Response {
        let space = try await authenticate(request)
        let query = request.uri.queryParameters
        guard let client = query["client"].map(String.init), !client.isEmpty, client.utf8.count <= 200, !client.utf8.contains(0) else {
            throw RequestFailure.badRequest("the query parameter client (the client id, 1 to 200 bytes) is missing or invalid")
        }
        let after = try parameter("after", query, default: 0, range: 0...Int64.max)
        let limit = Int(min(try parameter("limit", query, default: 1000, range: 1...Int64.max), Int64(SyncProtocol.maxPullLimit)))
        let logger = self.logger
        let body = try await database.withConnection { connection in
            try await Conflicts.page(space: space, client: client, after: after, limit: limit, connection: connection, logger: logger)
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }

    private func push(_ request: Request) async throws -> Response {
        let space = try await authenticate(request)
        let buffer = try await collect(request)
        // The hand-written reader first; `JSONDecoder` for what it does not read (and its
        // errors), after a check of what it would silently take (a member named twice) and
        // with the columns' names kept byte for byte (``PushBodyLayout``).
        let body = try PushBody.read(buffer) { try decode(PushRequest.self, from: $0) }
        let own = scope(of: space)
        if let claimed = body.scope, claimed != own {
            throw RequestFailure.conflict(.scopeChanged, "the push's scope \(claimed) is not this server's \(own) (another space's token, or a replaced server database): sync as for the first time")
        }
        let (database, logger) = (self.database, self.logger)
        let answer = try await spaceLocks.withLock(space) {
            try await Push.apply(body, space: space, database: database, logger: logger)
        }
        let applied = answer.results.reduce(0) { $0 + ($1.applied ? 1 : 0) }
        metrics.rowsApplied.increment(by: applied)
        metrics.rowsRefused.increment(by: answer.results.count - applied)
        if answer.conflicts > 0 { metrics.conflicts.increment(by: Int(answer.conflicts)) }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: answer.body(scope: own)))
    }

    private func pull(_ request: Request) async throws -> Response {
        let token = try bearerToken(request)
        let query = request.uri.queryParameters
        // A long poll whose token a woken poll found valid in the space's current generation
        // needs no query (``ValidTokens``); any other pull checks its token first.
        let space: Int64
        if let wait = query["wait"].flatMap({ Int64($0) }), wait > 0, let known = validTokens.entry(for: token),
           await notifier.generation(of: known.space) == known.generation {
            space = known.space
        } else {
            space = try await authenticate(token)
        }
        let after = try parameter("after", query, default: 0, range: 0...Int64.max)
        let limit = Int(try parameter("limit", query, default: 1000, range: 1...Int64.max))
        let wait = try parameter("wait", query, default: 0, range: 0...Int64(SyncProtocol.maxWaitSeconds))
        let cut = min(limit, SyncProtocol.maxPullLimit)
        // `tables=a,b`: only their rows (a client filling a column its app added).
        let tables = query["tables"].map { $0.split(separator: ",").map(String.init) }
        if let invalid = tables?.first(where: { !SyncProtocol.isValidTableName($0) }) {
            throw RequestFailure.badRequest("invalid table name \"\(invalid)\" in the query parameter tables")
        }
        let deadline = ContinuousClock.now + .seconds(wait)
        if wait > 0 { metrics.openPolls.increment() }
        defer { if wait > 0 { metrics.openPolls.decrement() } }
        var seen = await notifier.generation(of: space)
        // A plain pull reads the rows now (it may follow the client's own push, whose
        // notification may not have arrived yet); a long poll may take a recent read of this
        // generation, since a commit it lacks wakes it.
        var page = try await readPage(space: space, after: after, limit: cut, tables: tables, generation: seen, reuse: wait > 0)
        // A long poll: sleeps until a push (or a revocation) in the space wakes it, and
        // checks its token again after every wake and at least every `recheckInterval`.
        // The polls one push wakes share their token check and page read (``SharedReads``:
        // each key holds the generation seen first, so a shared query saw every commit the
        // wake announced, a revocation included).
        while page.count == 0, ContinuousClock.now < deadline, await !notifier.isClosed {
            await notifier.wait(space: space, after: seen, timeout: min(deadline - ContinuousClock.now, Self.recheckInterval))
            seen = await notifier.generation(of: space)
            let logger = self.logger, database = self.database
            let current = try await tokenChecks.value(for: TokenKey(token: token, generation: seen)) {
                // A JWT that expired while the poll waited ends it with its reason.
                if JWTUsers.isJWT(token) { return try await self.space(ofJWT: token) }
                return try await database.withConnection { try await Tokens.space(of: token, connection: $0, logger: logger) }
            }
            guard current == space else {
                throw RequestFailure.unauthorized("the token was revoked while the pull waited")
            }
            validTokens.remember(token, space: space, generation: seen)
            page = try await readPage(space: space, after: after, limit: cut, tables: tables, generation: seen, reuse: true)
        }
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: page.body(scope: scope(of: space))))
    }

    /// A page, read after the space's generation was `generation` (shared with the pulls
    /// reading the same page at the same time; with `reuse`, also one read of this
    /// generation that ended at most ``reuseInterval`` ago).
    private func readPage(space: Int64, after: Int64, limit: Int, tables: [String]?, generation: UInt64, reuse: Bool) async throws -> PullPage {
        let (database, logger, bytes) = (self.database, self.logger, pullPageBytes)
        let key = PageKey(space: space, after: after, limit: limit, tables: tables, generation: generation)
        return try await pageReads.value(for: key, reuse: reuse ? Self.reuseInterval : .zero) {
            try await database.withConnection { connection in
                try await Pull.page(space: space, after: after, limit: limit, bytes: bytes, tables: tables, connection: connection,
                                    logger: logger)
            }
        }
    }

    /// How often a waiting pull checks its token even without a notification (a revocation
    /// made without one, e.g. in plain SQL).
    static let recheckInterval: Duration = .seconds(5)

    /// How long a long poll may take a page read or token check made for another poll of
    /// the same generation (with thousands of long polls open, one read or check per poll
    /// would be a query each). A revocation made without a notification reaches a poll
    /// within ``recheckInterval`` plus this.
    static let reuseInterval: Duration = .seconds(1)

    private func tables(_ request: Request) async throws -> Response {
        let space = try await authenticate(request)
        let body = try await decode(TablesRequest.self, from: request)
        if let invalid = body.tables.first(where: { !SyncProtocol.isValidTableName($0) }) {
            throw RequestFailure.badRequest("invalid table name \"\(invalid)\" (1 to 63 letters, digits and _, not starting with a digit or swidux_)")
        }
        let logger = self.logger
        try await database.withConnection { connection in
            try await connection.query("""
                INSERT INTO sync_tables (space, tbl) SELECT \(space), unnest(\(body.tables)) ON CONFLICT DO NOTHING
                """, logger: logger)
            return ()
        }
        return Response(status: .noContent)
    }

    /// What a client's cursor and mutation ids belong to: this database and the space.
    private func scope(of space: Int64) -> String { "\(identity)/\(space)" }

    /// The space of the request's bearer token; 401 without a valid one.
    private func authenticate(_ request: Request) async throws -> Int64 {
        try await authenticate(try bearerToken(request))
    }

    private func authenticate(_ token: String, revoked: String = "unknown or revoked token") async throws -> Int64 {
        if JWTUsers.isJWT(token) { return try await self.space(ofJWT: token) }
        let logger = self.logger
        guard let space = try await database.withConnection({ try await Tokens.space(of: token, connection: $0, logger: logger) }) else {
            throw RequestFailure.unauthorized(revoked)
        }
        return space
    }

    /// The personal space of a JWT's user; 401 naming the cause for a token the server does not accept.
    private func space(ofJWT token: String) async throws -> Int64 {
        guard let users else {
            throw RequestFailure.unauthorized("the token is a JWT, but this server accepts none (start it with --jwt-keys)")
        }
        let subject = try await users.subject(of: token)
        return try await userSpaces.space(of: subject, database: database, logger: logger)
    }

    /// The request's bearer token; 401 without one.
    private func bearerToken(_ request: Request) throws -> String {
        guard let header = request.headers[.authorization] else {
            throw RequestFailure.unauthorized("missing bearer token (Authorization: Bearer <token>)")
        }
        let prefix = "bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else {
            throw RequestFailure.unauthorized("the Authorization header is not a bearer token")
        }
        return String(header.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
    }

    /// Reads the body (413 past ``SyncProtocol/maxBodyBytes``) and decodes it (400 naming the cause).
    private func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        try decode(type, from: try await collect(request))
    }

    /// Reads the body; 413 past ``SyncProtocol/maxBodyBytes``.
    private func collect(_ request: Request) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > SyncProtocol.maxBodyBytes {
            throw RequestFailure.tooLarge
        }
        do {
            return try await request.body.collect(upTo: SyncProtocol.maxBodyBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw RequestFailure.tooLarge
        } catch is NIOTooManyBytesError {
            // A chunked body (no Content-Length) past the limit.
            throw RequestFailure.tooLarge
        }
    }

    /// Decodes a body with `JSONDecoder`; 400 naming the cause.
    private func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
        } catch {
            throw RequestFailure.badRequest("malformed \(type) JSON: \(Self.describe(error))")
        }
    }

    private func parameter(_ name: String, _ query: Parameters, default value: Int64, range: ClosedRange<Int64>) throws -> Int64 {
        guard let text = query[name[...]] else { return value }
        guard let number = Int64(text), range.contains(number) else {
            throw RequestFailure.badRequest("invalid query parameter \(name)=\(text) (an integer in \(range.lowerBound)...\(range.upperBound))")
        }
        return number
    }

    private func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(value))))
    }

    /// Runs a handler; a ``RequestFailure`` becomes its status, anything else a 500 (logged).
    /// A request whose framing is malformed (a chunked body with a negative, hexadecimal-
    /// prefixed or wrong chunk size, a missing CRLF…: NIO's parser fails while the body is
    /// read) is rethrown, for Hummingbird to answer 400 and close the connection, whose
    /// bytes can no longer be read as requests.
    private func respond(_ context: BasicRequestContext, _ handler: (Routes) async throws -> Response) async throws -> Response {
        do {
            return try await handler(self)
        } catch let error as HTTPParserError {
            throw error
        } catch let failure as RequestFailure {
            // Below the server's default level (notice): an operator turns it on to follow a
            // client's refusals; the line names the request id the client was told.
            logger.info("request refused", metadata: ["status": "\(failure.status.code)", "reason": "\(failure.description)"])
            var response = (try? json(SyncErrorBody(error: failure.description, code: failure.code, requestID: context.id),
                                      status: failure.status))
                ?? Response(status: failure.status)
            if failure.status == .serviceUnavailable { response.headers[.retryAfter] = "5" }
            return response
        } catch {
            logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            return (try? json(SyncErrorBody(error: "internal server error", requestID: context.id), status: .internalServerError))
                ?? Response(status: .internalServerError)
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
             DecodingError.valueNotFound(_, let context), DecodingError.keyNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path): ") + context.debugDescription
        default:
            return "\(error)"
        }
    }
}
