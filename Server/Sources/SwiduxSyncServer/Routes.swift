import Foundation
import Hummingbird
import Logging
import NIOHTTP1
import PostgresNIO
import SwiduxSyncWire

/// The HTTP surface (``SwiduxSyncWire/SyncProtocol``): `POST /v1/push`, `GET /v1/pull`,
/// `PUT /v1/tables`, `GET /v1/conflicts`, each behind a bearer token (a JWT user may name a
/// shared space with `?space=NAME`), the spaces API (`Routes+Spaces.swift`) and the members
/// API (`Routes+Members.swift`). Refusals are
/// answered with a ``SwiduxSyncWire/SyncErrorBody``: 401 (token), 403 (not a member, a reader
/// declaring a new table), 400 (body, table, query), 409 (a used
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
    /// Each connection's admission by its address (``ConnectionCounts``): a request that
    /// authenticates takes its connection out of its address's count.
    let connections: ConnectionCounts
    /// Which connections' clients are still there (``ConnectionEnds``): a long poll whose
    /// client went away answers at once.
    let connectionEnds: ConnectionEnds
    /// The requests in flight per user and per space (``RequestLimits``).
    let requestLimits: RequestLimits
    /// What an over-limit or database-unavailable answer's `Retry-After` says (``SyncServerLimits/retryAfter``).
    let retryAfter: Duration
    /// The operator's rules (``SyncRules``), run on each pushed change of their tables.
    var rules = SyncRules()
    /// The request's connection, in each request's copy of the routes.
    var connection: ObjectIdentifier?
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
    /// Who sent a request: the space its token opens, and the user its in-flight requests
    /// count for (a JWT's subject, or the opaque token itself), and what rules see of it: the
    /// role, the JWT's subject, the space's name when the request made it known.
    struct Caller: Sendable {
        var space: Int64
        var user: String
        var role: SpaceRole = .writer
        var subject: String? = nil
        var spaceName: String? = nil
    }

    /// Adds the routes; the metrics count every request of `parent` (`countingAll`: the
    /// standalone server's, unmatched ones too), or only the sync routes' (an embedding app's).
    func add<Context: RequestContext>(to parent: Router<Context>, countingAll: Bool = false) {
        let router = parent.group()
        if countingAll {
            parent.add(middleware: RequestMetricsMiddleware<Context>(metrics: metrics))
        } else {
            router.add(middleware: RequestMetricsMiddleware<Context>(metrics: metrics))
        }
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
        addSpaceRoutes(to: router)
        addMemberRoutes(to: router)
    }

    /// The routes as one request sees them: logging with the request's logger.
    func serving(_ context: some RequestContext) -> Routes {
        var routes = self
        routes.logger = context.logger
        // An operator's own context knows no connection: no early end of a long poll there.
        routes.connection = (context as? SyncRequestContext)?.connection
        return routes
    }

    /// `GET /v1/conflicts?client=<id>&after=<n>&limit=<n>`: the conflicts of the token's space
    /// whose replaced value the client wrote.
    private func conflicts(_ request: Request) async throws -> Response {
        let caller = try await authenticate(request)
        return try await admitted(caller) { try await conflicts(request, space: caller.space) }
    }

    private func conflicts(_ request: Request, space: Int64) async throws -> Response {
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

    /// A reader's push is taken as a request like any other: each of its changes is answered
    /// refused, with the reason (``PushAuthority``).
    private func push(_ request: Request) async throws -> Response {
        let caller = try await authenticate(request)
        let authority = PushAuthority(role: caller.role, user: caller.subject, space: caller.spaceName, rules: rules)
        return try await admitted(caller) { try await push(request, space: caller.space, authority: authority) }
    }

    private func push(_ request: Request, space: Int64, authority: PushAuthority) async throws -> Response {
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
            try await Push.apply(body, space: space, authority: authority, database: database, logger: logger)
        }
        let applied = answer.results.reduce(0) { $0 + ($1.applied ? 1 : 0) }
        metrics.rowsApplied.increment(by: applied)
        metrics.rowsRefused.increment(by: answer.results.count - applied)
        if answer.conflicts > 0 { metrics.conflicts.increment(by: Int(answer.conflicts)) }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: answer.body(scope: own)))
    }

    /// `GET /v1/pull?after=<n>&limit=<n>&wait=<s>&tables=a,b`: a page of the space's rows past
    /// `after`. With `wait` > 0 an empty page waits for a push (a long poll), and may also watch
    /// shared spaces, `watch=<cursor>:<space>` once each (``WatchedSpaces``, at most
    /// ``SwiduxSyncWire/SyncProtocol/maxWatchedSpaces``): the poll answers its page as soon as
    /// one of them the caller is a member of holds a row past its cursor.
    private func pull(_ request: Request) async throws -> Response {
        let token = try bearerToken(request)
        let query = request.uri.queryParameters
        let named = query["space"].map(String.init)
        // The token and the space it asks for: one check answers both.
        let key = named.map { token + "\n" + $0 } ?? token
        // A long poll whose token a woken poll found valid in the space's current generation
        // needs no query (``ValidTokens``); any other pull checks its token first.
        let caller: Caller
        if let wait = query["wait"].flatMap({ Int64($0) }), wait > 0, let known = validTokens.entry(for: key),
           await notifier.generation(of: known.space) == known.generation {
            caller = Caller(space: known.space, user: known.user)
            authenticated()
        } else {
            caller = try await authenticate(token, space: named)
        }
        return try await admitted(caller) { try await pull(request, token: token, named: named, key: key, caller: caller) }
    }

    private func pull(_ request: Request, token: String, named: String?, key: String, caller: Caller) async throws -> Response {
        let (space, query) = (caller.space, request.uri.queryParameters)
        let after = try parameter("after", query, default: 0, range: 0...Int64.max)
        let limit = Int(try parameter("limit", query, default: 1000, range: 1...Int64.max))
        let wait = try parameter("wait", query, default: 0, range: 0...Int64(SyncProtocol.maxWaitSeconds))
        let cut = min(limit, SyncProtocol.maxPullLimit)
        // `tables=a,b`: only their rows (a client filling a column its app added).
        let tables = query["tables"].map { $0.split(separator: ",").map(String.init) }
        if let invalid = tables?.first(where: { !SyncProtocol.isValidTableName($0) }) {
            throw RequestFailure.badRequest("invalid table name \"\(invalid)\" in the query parameter tables")
        }
        let items = try WatchedSpaces.items(query)
        let deadline = ContinuousClock.now + .seconds(wait)
        if wait > 0 { metrics.openPolls.increment() }
        defer { if wait > 0 { metrics.openPolls.decrement() } }
        // Read before the generation: a change of the user's spaces in between is seen at
        // the loop's first check.
        let spacesSeen = await notifier.spacesChanges(of: space)
        var seen = await notifier.generation(of: space)
        // A plain pull reads the rows now (it may follow the client's own push, whose
        // notification may not have arrived yet); a long poll may take a recent read of this
        // generation, since a commit it lacks wakes it.
        var page = try await readPage(space: space, after: after, limit: cut, tables: tables, generation: seen, reuse: wait > 0)
        // The watched spaces: the poll answers its page as soon as one of them has news.
        var (watched, watchedSeen, news) = wait > 0 && page.count == 0
            ? try await watching(items, caller: caller) : (WatchedSpaces(), [:], false)
        var checked = ContinuousClock.now
        // A long poll: sleeps until a push (or a revocation) in the space wakes it, and
        // checks its token again after every wake and at least every `recheckInterval`.
        // The polls one push wakes share their token check and page read (``SharedReads``:
        // each key holds the generation seen first, so a shared query saw every commit the
        // wake announced, a revocation included). A change of the user's spaces (a personal
        // space's poll) answers the empty page at once: the device asks for its spaces again.
        while page.count == 0, !news, ContinuousClock.now < deadline, await !notifier.isClosed,
              await notifier.spacesChanges(of: space) == spacesSeen {
            let timeout = min(deadline - ContinuousClock.now, Self.recheckInterval)
            // The poll's own space and its watched ones, waited on at once.
            let generations = watchedSeen.merging([space: seen]) { _, own in own }
            if let connection {
                // A client that went away (closed the connection, or its sending side) ends the
                // wait: the poll answers its empty page now, and its request slot is free again.
                let (notifier, ends) = (self.notifier, connectionEnds)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await notifier.wait(spaces: generations, timeout: timeout) }
                    group.addTask { await ends.waitForEnd(of: connection) }
                    await group.next()
                    group.cancelAll()
                }
                if ends.hasEnded(connection) { break }
            } else {
                await notifier.wait(spaces: generations, timeout: timeout)
            }
            if !watched.isEmpty {
                let now = await notifier.generations(of: watched.spaces)
                if now != watchedSeen {
                    watchedSeen = now
                    news = try await hasNews(watched)
                    if news { break }
                }
            }
            // A wake by a watched space only, with no news there: the token was checked
            // less than `recheckInterval` ago, and the page has not moved.
            let previous = seen
            seen = await notifier.generation(of: space)
            if !watched.isEmpty, seen == previous, ContinuousClock.now - checked < Self.recheckInterval { continue }
            checked = ContinuousClock.now
            let logger = self.logger, database = self.database
            let current = try await tokenChecks.value(for: TokenKey(token: key, generation: seen)) {
                // A JWT that expired while the poll waited ends it with its reason, and so
                // does its user's removal from the shared space (403).
                if JWTUsers.isJWT(token) {
                    guard let named else { return try await self.space(ofJWT: token) }
                    return try await self.sharedSpace(named, of: try await self.subject(ofJWT: token)).space
                }
                return try await database.withConnection { try await Tokens.space(of: token, connection: $0, logger: logger) }
            }
            guard current == space else {
                throw RequestFailure.unauthorized("the token was revoked while the pull waited")
            }
            validTokens.remember(key, space: space, user: caller.user, generation: seen)
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
        let caller = try await authenticate(request)
        return try await admitted(caller) { try await tables(request, caller: caller) }
    }

    /// Declares tables; a reader (whose client declares its tables before it syncs) may name
    /// only tables the space has: 403 for another.
    private func tables(_ request: Request, caller: Caller) async throws -> Response {
        let space = caller.space
        let body = try await decode(TablesRequest.self, from: request)
        if let invalid = body.tables.first(where: { !SyncProtocol.isValidTableName($0) }) {
            throw RequestFailure.badRequest("invalid table name \"\(invalid)\" (1 to 63 letters, digits and _, not starting with a digit or swidux_)")
        }
        let logger = self.logger
        let reader = caller.role == .reader
        let unknown = try await database.withConnection { connection in
            if reader {
                var unknown: [String] = []
                for try await missing in try await connection.query("""
                    SELECT t FROM unnest(\(body.tables)) AS t WHERE NOT EXISTS (SELECT 1 FROM sync_tables WHERE space = \(space) AND tbl = t)
                    """, logger: logger).decode(String.self) { unknown.append(missing) }
                return unknown
            }
            try await connection.query("""
                INSERT INTO sync_tables (space, tbl) SELECT \(space), unnest(\(body.tables)) ON CONFLICT DO NOTHING
                """, logger: logger)
            return []
        }
        if let table = unknown.first {
            throw RequestFailure(status: .forbidden,
                                 description: "\"\(caller.subject ?? "")\" is a reader of space \"\(caller.spaceName ?? "")\": a reader may pull, not declare the table \"\(table)\"")
        }
        return Response(status: .noContent)
    }

    /// What a client's cursor and mutation ids belong to: this database and the space.
    private func scope(of space: Int64) -> String { "\(identity)/\(space)" }

    /// Who sent the request, by its bearer token, the space it reaches and its role there: 401
    /// without a valid token, 403 for a space the caller may not reach.
    private func authenticate(_ request: Request) async throws -> Caller {
        try await authenticate(try bearerToken(request), space: request.uri.queryParameters["space"].map(String.init))
    }

    /// The caller a token names and the space it reaches: a JWT user's personal space, or the
    /// shared space `named` (the query parameter `space`) if they are a member (with their
    /// role: what they may write is decided per change, ``PushAuthority``); an opaque token's
    /// own space, as a writer. 401 for a token the server does not accept,
    /// 403 for a space the caller may not reach so. A token that authenticates takes the
    /// request's connection out of its address's count.
    func authenticate(_ token: String, space named: String?) async throws -> Caller {
        let caller: Caller
        if JWTUsers.isJWT(token) {
            let subject = try await self.subject(ofJWT: token)
            if let named {
                let (space, role) = try await sharedSpace(named, of: subject)
                caller = Caller(space: space, user: Self.jwtUserPrefix + subject, role: role, subject: subject, spaceName: named)
            } else {
                let space = try await userSpaces.space(of: subject, database: database, logger: logger)
                caller = Caller(space: space, user: Self.jwtUserPrefix + subject, role: .owner, subject: subject,
                                spaceName: UserSpaces.prefix + subject)
            }
        } else {
            if named != nil {
                throw RequestFailure.badRequest("the query parameter space names a space of JWT users; an opaque token opens its own space only")
            }
            let logger = self.logger
            guard let space = try await database.withConnection({ try await Tokens.space(of: token, connection: $0, logger: logger) }) else {
                throw RequestFailure.unauthorized("unknown or revoked token")
            }
            caller = Caller(space: space, user: "token:" + token)
        }
        authenticated()
        return caller
    }

    /// The request's connection made an authenticated request.
    func authenticated() {
        if let connection { connections.authenticated(connection) }
    }

    /// Runs a request of `caller` counted in its user's and space's requests in flight; 429
    /// with `Retry-After`, before anything is read or changed, when either is at its limit.
    func admitted(_ caller: Caller, _ body: () async throws -> Response) async throws -> Response {
        guard requestLimits.enter(user: caller.user, space: caller.space) else {
            throw RequestFailure.tooManyRequests(
                "too many requests in flight for this user (at most \(requestLimits.perUser)) or space (at most \(requestLimits.perSpace)); try again later")
        }
        defer { requestLimits.leave(user: caller.user, space: caller.space) }
        return try await body()
    }

    /// The id of the space `named`, which `subject` is a member of, and their role; 403 naming
    /// the user and the space otherwise.
    private func sharedSpace(_ named: String, of subject: String) async throws -> (space: Int64, role: SpaceRole) {
        let logger = self.logger
        guard let (space, role) = try await database.withConnection({ try await Members.role(of: subject, in: named, connection: $0, logger: logger) }) else {
            throw RequestFailure(status: .forbidden, description: "\"\(subject)\" is not a member of space \"\(named)\"")
        }
        return (space, role)
    }

    /// The personal space of a JWT's user; 401 naming the cause for a token the server does not accept.
    private func space(ofJWT token: String) async throws -> Int64 {
        try await userSpaces.space(of: try await subject(ofJWT: token), database: database, logger: logger)
    }

    /// A JWT's user; 401 naming the cause for a token the server does not accept.
    func subject(ofJWT token: String) async throws -> String {
        guard let users else {
            throw RequestFailure.unauthorized("the token is a JWT, but this server accepts none (start it with --jwt-keys)")
        }
        return try await users.subject(of: token)
    }

    /// The request's bearer token; 401 without one.
    func bearerToken(_ request: Request) throws -> String {
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
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
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

    func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(value))))
    }

    /// Runs a handler; a ``RequestFailure`` becomes its status, anything else a 500 (logged).
    /// A request whose framing is malformed (a chunked body with a negative, hexadecimal-
    /// prefixed or wrong chunk size, a missing CRLF…: NIO's parser fails while the body is
    /// read) is rethrown, for Hummingbird to answer 400 and close the connection, whose
    /// bytes can no longer be read as requests.
    func respond(_ context: some RequestContext, _ handler: (Routes) async throws -> Response) async throws -> Response {
        do {
            return try await handler(self)
        } catch let error as HTTPParserError {
            throw error
        } catch var failure as RequestFailure {
            if failure.status == .unauthorized, let connection, connections.isOnProbation(connection) {
                // A connection past its address's limit must authenticate: it is refused as
                // over the limit (and closed by its probation timer), not told why its token failed.
                failure = .tooManyRequests("too many connections from this address have not signed in (at most \(connections.limit)); "
                                           + "try again later with a valid token")
                failure.closes = true
            }
            // Below the server's default level (notice): an operator turns it on to follow a
            // client's refusals; the line names the request id the client was told.
            logger.info("request refused", metadata: ["status": "\(failure.status.code)", "reason": "\(failure.description)"])
            var response = (try? json(SyncErrorBody(error: failure.description, code: failure.code, requestID: context.id),
                                      status: failure.status))
                ?? Response(status: failure.status)
            if failure.asksRetry {
                response.headers[.retryAfter] = String(max(1, Int((retryAfter + .milliseconds(999)).components.seconds)))
            }
            if failure.closes { response.headers[.connection] = "close" }
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
