import Foundation
import Logging
import SwiduxSQLite
import SwiduxSyncWire

/// Syncs every space of a user: their personal space and each shared space they are a member
/// of, one ``SyncClient`` per space on one database file, and manages shared spaces and their
/// members.
///
/// ```swift
/// let spaces = try SyncSpaces(database: database, server: url, token: jwt,
///                             tables: [.table(AppDatabase.lists, spaceColumn: "space"),
///                                      .table(AppDatabase.items, spaceColumn: "space")])
/// try await spaces.createSpace("family")
/// try await spaces.addMember("bob", role: .writer, to: "family")
/// // Move a list (and its items) into the shared space: set their space column, then
/// let report = try await spaces.sync()
/// ```
///
/// Which space a row is in is the app's choice, made by the rows themselves: a table with a
/// ``SyncTable/spaceColumn`` names each row's space there (`NULL`: the personal space), and
/// a child row names its parent's space. A row whose column changes moves: it is deleted
/// from the space it was in and inserted, whole, in the new one. Tables without a space
/// column stay in the personal space.
///
/// A member whose role is reader reads only: the server refuses their changes, which come
/// back as refusals (``SyncClient/conflicts()``) while their rows return to the server's. A
/// user removed from a space keeps its rows on the device: ``spaces(in:)`` lists it with no
/// role, and its client no longer syncs.
public actor SyncSpaces {
    /// What every space's continuous sync reports (``SyncClient/events``), merged.
    ///
    /// ```swift
    /// Task { for await event in spaces.events { print(event) } }
    /// ```
    public nonisolated let events: AsyncStream<SyncEvent>
    private let continuation: AsyncStream<SyncEvent>.Continuation
    /// The client of the personal space (the token's own).
    ///
    /// ```swift
    /// let conflicts = try await spaces.personal.conflicts()
    /// ```
    public nonisolated let personal: SyncClient
    private var shared: [String: SyncClient] = [:]
    private let database: SwiduxDatabase
    private let server: URL
    private let token: String
    private let tables: [SyncTable]
    private let trustedCertificates: SyncTrustedCertificates?
    private let retry: SyncRetryPolicy
    private let logger: Logger
    /// Requests that name no space: the list of spaces, their members.
    private let transport: SyncTransport
    private var running = false
    /// The clients syncing continuously, by space ("" for the personal one): each forwards its events.
    private var tasks: [String: Task<Void, Never>] = [:]
    /// Whether the shared spaces are being pulled after a long poll ended.
    private var polling = false
    /// The unique renamers given, set on every space's client.
    private let renamers = LockedValue<[String: SyncUniqueRenamer]>([:])

    /// The spaces of `token`'s user on `server`, for `tables` of `database` (see
    /// ``SyncClient/init(database:server:token:tables:space:pageSize:trustedCertificates:retry:logger:)``).
    ///
    /// ```swift
    /// let spaces = try SyncSpaces(database: database, server: url, token: jwt, tables: tables)
    /// ```
    public init(database: SwiduxDatabase, server: URL, token: String, tables: [SyncTable],
                trustedCertificates: SyncTrustedCertificates? = nil, retry: SyncRetryPolicy = .standard,
                logger: Logger = Logger(label: "swidux.sync")) throws {
        self.database = database
        self.server = server
        self.token = token
        self.tables = tables
        self.trustedCertificates = trustedCertificates
        self.retry = retry
        self.logger = logger
        personal = try SyncClient(database: database, server: server, token: token, tables: tables,
                                  trustedCertificates: trustedCertificates, retry: retry, logger: logger)
        transport = SyncTransport(server: server, token: token, trusting: trustedCertificates)
        (events, continuation) = AsyncStream.makeStream(of: SyncEvent.self, bufferingPolicy: .bufferingNewest(100))
    }

    /// The client of `space` (`nil`: the personal space's), made on first use.
    ///
    /// ```swift
    /// let family = try await spaces.client(for: "family")
    /// ```
    public func client(for space: String?) throws -> SyncClient {
        guard let space else { return personal }
        if let client = shared[space] { return client }
        let client = try SyncClient(database: database, server: server, token: token, tables: tables, space: space,
                                    trustedCertificates: trustedCertificates, retry: retry, logger: logger)
        for (table, renamer) in renamers.withLock({ $0 }) { client.setUniqueRenamer(for: table, renamer) }
        shared[space] = client
        return client
    }

    /// Sets what renames a row whose unique index clashes with another device's row, in every
    /// space (``SyncClient/setUniqueRenamer(for:_:)``).
    ///
    /// ```swift
    /// spaces.setUniqueRenamer(for: "list") { clash in
    ///     guard case .text(let name)? = clash.columns["name"] else { return nil }
    ///     return SyncUniqueClash.Rename(column: "name", value: .text("\(name) (\(clash.number))"))
    /// }
    /// ```
    public nonisolated func setUniqueRenamer(for table: String, _ renamer: SyncUniqueRenamer?) {
        renamers.withLock { $0[table] = renamer }
        personal.setUniqueRenamer(for: table, renamer)
        // Clients made before: the actor's own list.
        Task { await self.setRenamerOnShared(table, renamer) }
    }

    private func setRenamerOnShared(_ table: String, _ renamer: SyncUniqueRenamer?) {
        for client in shared.values { client.setUniqueRenamer(for: table, renamer) }
    }

    // MARK: - Spaces

    /// The shared spaces this file has synced, with the role the server last listed (`nil`:
    /// no longer a member), by name; no request is made.
    ///
    /// ```swift
    /// let readOnly = try SyncSpaces.spaces(in: database).filter { !$0.isWritable }.map(\.name)
    /// ```
    public static func spaces(in database: SwiduxDatabase) throws -> [SyncSpace] {
        try database.writer.read { db in
            try SyncSpaceRegistry.spaces(db).map { SyncSpace(name: $0.name, role: $0.role.flatMap(SyncSpace.Role.init), isPersonal: false) }
        }
    }

    /// Asks the server for the user's spaces and records their roles: a shared space no longer
    /// listed keeps its rows, with no role. The personal space comes first.
    ///
    /// ```swift
    /// let names = try await spaces.refresh().map(\.name)   // ["user:alice", "family"]
    /// ```
    @discardableResult
    public func refresh() async throws -> [SyncSpace] {
        let list: SpaceList
        do {
            list = try await transport.send("GET", SyncProtocol.spacesPath, as: SpaceList.self)
        } catch SyncError.rejected(status: 404, _) {
            // A server without shared spaces: the personal space only.
            return []
        }
        let spaces = list.spaces.map { SyncSpace(name: $0.name, role: SyncSpace.Role(rawValue: $0.role), isPersonal: $0.personal) }
        let roles = Dictionary(spaces.filter { !$0.isPersonal }.map { ($0.name, $0.role?.rawValue ?? SyncSpace.Role.reader.rawValue) },
                               uniquingKeysWith: { first, _ in first })
        try local { try database.writer.write { db in try SyncSpaceRegistry.record(roles, db) } }
        if running { try await follow() }
        return spaces
    }

    /// Makes a shared space owned by the user (nothing when they own it already).
    ///
    /// ```swift
    /// try await spaces.createSpace("family")
    /// ```
    ///
    /// - Throws: ``SyncError/rejected(status:message:)`` 409 when another user made a space of
    ///   that name, 403 for a token that is not a JWT.
    public func createSpace(_ name: String) async throws {
        _ = try await transport.send("POST", SyncProtocol.spacesPath, body: try JSONEncoder().encode(NewSpace(name: name)))
        try await refresh()
    }

    /// Makes `user` a member of `space` with `role`, or changes their role (for an owner).
    ///
    /// ```swift
    /// try await spaces.addMember("bob", role: .reader, to: "family")
    /// ```
    public func addMember(_ user: String, role: SyncSpace.Role, to space: String) async throws {
        let body = try JSONEncoder().encode(SpaceMemberEntry(user: user, role: role.rawValue))
        _ = try await transport.send("POST", SyncProtocol.membersPath(of: space), body: body)
    }

    /// Removes `user` from `space` (for an owner): their open polls end at once, and their
    /// devices keep what they hold, read-only.
    ///
    /// ```swift
    /// try await spaces.removeMember("bob", from: "family")
    /// ```
    public func removeMember(_ user: String, from space: String) async throws {
        _ = try await transport.send("DELETE", SyncProtocol.memberPath(of: space, user: user))
    }

    /// The members of `space`, by user (for a member).
    ///
    /// ```swift
    /// let members = try await spaces.members(of: "family")
    /// ```
    public func members(of space: String) async throws -> [SyncSpace.Member] {
        let list = try await transport.send("GET", SyncProtocol.membersPath(of: space), as: SpaceMemberList.self)
        return list.members.compactMap { member in SyncSpace.Role(rawValue: member.role).map { SyncSpace.Member(user: member.user, role: $0) } }
    }

    // MARK: - Sync

    /// One round for every space: asks for the user's spaces, then syncs each shared space
    /// they are a member of and then the personal space (``SyncClient/sync()``). The report
    /// adds up theirs; `pending` counts every space's.
    ///
    /// Shared spaces come first: a row another device moved into one arrives there (naming
    /// it) before the personal space's deletion of the same row, which is then not applied —
    /// the other order would delete the row, and its personal children, before it came back.
    ///
    /// ```swift
    /// let report = try await spaces.sync()
    /// ```
    @discardableResult
    public func sync() async throws -> SyncReport {
        let listed = try await refresh()
        var report = SyncReport()
        for space in listed where !space.isPersonal && space.role != nil {
            do {
                report.add(try await client(for: space.name).sync())
            } catch SyncError.rejected(status: 403, _) {
                // Removed since the list was read: its rows stay, read-only.
                try local { try database.writer.write { db in try SyncSpaceRegistry.forget(space.name, db) } }
            }
        }
        report.add(try await personal.sync())
        report.pending = try await pendingChanges()
        return report
    }

    /// Changes waiting to be pushed, in every space.
    ///
    /// ```swift
    /// let waiting = try await spaces.pendingChanges()
    /// ```
    public func pendingChanges() async throws -> Int {
        var total = try await personal.pendingChanges()
        for client in shared.values { total += try await client.pendingChanges() }
        return total
    }

    /// Syncs every space continuously until ``stop()``, with one long poll: each space's
    /// local changes are pushed as they are made (``SyncClient/start()``), and the personal
    /// space's long poll also watches the shared spaces, at the cursor each holds. When it
    /// ends — a change in any of them, or in the user's spaces — the list of spaces is read
    /// again (a space shared with the user starts syncing, one they were removed from stops)
    /// and the shared spaces are pulled.
    ///
    /// ```swift
    /// await spaces.start()
    /// ```
    public func start() async {
        guard !running else { return }
        running = true
        await personal.setWatch(SyncWatch(items: { [weak self] in await self?.watchItems() ?? [] },
                                          polled: { [weak self] in await self?.polled() }))
        forward(personal, as: "")
        await personal.start()
        // The spaces known from before push at once, offline too.
        let known = (try? Self.spaces(in: database)) ?? []
        for space in known where space.role != nil { await startClient(space.name) }
    }

    /// The personal space's long poll ended: the spaces again, then every shared one's news.
    private func polled() async {
        guard running, !polling else { return }
        polling = true
        defer { polling = false }
        do { try await refresh() } catch { logger.debug("Swidux sync: the list of spaces could not be read: \(error)") }
        for space in tasks.keys.sorted() where !space.isEmpty {
            guard running, let client = shared[space] else { continue }
            await client.pullOnce()
        }
    }

    /// The shared spaces syncing, each with the cursor its client holds, as the long poll's
    /// query items (`watch=<cursor>:<space>`), at most `SyncProtocol.maxWatchedSpaces` (the
    /// others are pulled each time the poll ends).
    private func watchItems() -> [URLQueryItem] {
        tasks.keys.sorted().filter { !$0.isEmpty }.prefix(SyncProtocol.maxWatchedSpaces).compactMap { space in
            guard let cursor = try? shared[space]?.storedCursor() else { return nil }
            return URLQueryItem(name: SyncProtocol.watchParameter, value: SyncProtocol.watchItem(space: space, cursor: cursor))
        }
    }

    /// Stops every space's continuous sync.
    ///
    /// ```swift
    /// await spaces.stop()
    /// ```
    public func stop() async {
        running = false
        await personal.setWatch(nil)
        await personal.stop()
        for client in shared.values { await client.stop() }
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
    }

    /// Ends every space's retry waits now (``SyncClient/retryNow()``).
    ///
    /// ```swift
    /// await spaces.retryNow()
    /// ```
    public func retryNow() async {
        await personal.retryNow()
        for client in shared.values { await client.retryNow() }
    }

    /// Starts the clients of the spaces the user is a member of, stops the others'.
    private func follow() async throws {
        let spaces = try local { try Self.spaces(in: database) }
        for space in spaces {
            if space.role != nil {
                await startClient(space.name)
            } else if let client = shared[space.name], tasks[space.name] != nil {
                await client.stop()
                tasks.removeValue(forKey: space.name)?.cancel()
            }
        }
    }

    private func startClient(_ space: String) async {
        // Not after stop(): a list of spaces read while it ran (``refresh()`` from a poll that
        // ended) would otherwise start a client nobody stops.
        guard running, tasks[space] == nil, let client = try? client(for: space) else { return }
        forward(client, as: space)
        // Pulled when the personal space's long poll says so.
        await client.start(pulling: false)
        // stop() ran while this client was starting (an actor runs other calls at each await).
        if !running {
            await client.stop()
            tasks.removeValue(forKey: space)?.cancel()
        }
    }

    /// Passes `client`'s events on.
    private func forward(_ client: SyncClient, as key: String) {
        let continuation = self.continuation
        tasks[key] = Task { for await event in client.events { continuation.yield(event) } }
    }

    private func local<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SyncError { throw error } catch { throw SyncError.local(error) }
    }
}
