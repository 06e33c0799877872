import Logging
import PostgresNIO
import Synchronization
import SwiduxSyncWire

/// The personal space of each JWT user (`sync_users`), made on the user's first request and
/// reachable only with that user's tokens: its name, `user:` and the subject, is one
/// `token create` refuses. The user is recorded as its owner (`sync_members`).
///
/// ```swift
/// let space = try await spaces.space(of: "alice", database: database, logger: logger)
/// ```
final class UserSpaces: Sendable {
    /// The prefix of personal spaces' names.
    static let prefix = SyncProtocol.personalSpacePrefix
    /// A subject's longest form (a space name has at most 200 bytes).
    static let maxSubjectBytes = 190

    /// A user's space never changes once made: asked once per subject and process.
    private let known = Mutex<[String: Int64]>([:])

    func space(of subject: String, database: Database, logger: Logger) async throws -> Int64 {
        if let space = known.withLock({ $0[subject] }) { return space }
        let name = Self.prefix + subject
        let space: Int64
        do {
            space = try await database.withConnection { connection in
                try await Self.findOrMake(subject: subject, name: name, connection: connection, logger: logger)
            }
        } catch {
            // Two first requests of one user at once: one made the space, the other's insert
            // failed on a unique key. The space is there now.
            guard let made = try await database.withConnection({ try await Self.find(subject: subject, connection: $0, logger: logger) }) else {
                throw error
            }
            space = made
        }
        known.withLock { $0[subject] = space }
        return space
    }

    private static func findOrMake(subject: String, name: String, connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query("""
            WITH existing AS (SELECT space FROM sync_users WHERE subject = \(subject)),
            made AS (INSERT INTO sync_spaces (name) SELECT \(name) WHERE NOT EXISTS (SELECT 1 FROM existing) RETURNING id),
            linked AS (INSERT INTO sync_users (subject, space) SELECT \(subject), id FROM made RETURNING space),
            owned AS (INSERT INTO sync_members (space, subject, role) SELECT id, \(subject), 'owner' FROM made)
            SELECT space FROM existing UNION ALL SELECT space FROM linked
            """, logger: logger)
        var space: Int64?
        for try await id in rows.decode(Int64.self) { space = id }
        guard let space else { throw SyncServerError("the personal space of \"\(subject)\" was not made") }
        return space
    }

    private static func find(subject: String, connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        var space: Int64?
        for try await id in try await connection.query("SELECT space FROM sync_users WHERE subject = \(subject)", logger: logger)
            .decode(Int64.self) { space = id }
        return space
    }
}
