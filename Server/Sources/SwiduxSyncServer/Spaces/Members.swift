import Logging
import PostgresNIO

/// The members of spaces (`sync_members`), managed by the operator (`swidux-sync-server space
/// add-member|remove-member|list`).
///
/// The invariants, which every change keeps (and a trigger checks again at commit):
/// - a space with members has at least one owner: its first member is an owner, and the last
///   owner can be neither removed nor given another role;
/// - a personal space (`user:<sub>`) is owned by its user, who stays its owner;
/// - a role is exactly one of ``SpaceRole``.
///
/// Changes to one space's members are serialized (its `sync_spaces` row is locked), so two
/// owners removed at once cannot leave the space without one.
///
/// The same changes are the members API of JWT owners (`GET|POST /v1/spaces/{space}/members`,
/// `DELETE /v1/spaces/{space}/members/{user}`), and a JWT user makes a shared space they own
/// with `POST /v1/spaces` and lists theirs with `GET /v1/spaces`. A member added, removed or
/// given another role, here or there, ends the long polls on their personal space when the
/// change commits (an empty page at once): their devices ask `GET /v1/spaces` again.
///
/// ```swift
/// try await Members.add(space: "family", subject: "alice", role: .owner, client: client, logger: logger)
/// try await Members.add(space: "family", subject: "bob", role: .reader, client: client, logger: logger)
/// try await Members.remove(space: "family", subject: "bob", client: client, logger: logger)
/// ```
public enum Members {
    /// Makes `subject` a member of `space` with `role`, or changes their role. A space that does
    /// not exist is made, its first member being an owner; a personal space is never made here
    /// (its user's first request makes it).
    ///
    /// ```swift
    /// try await Members.add(space: "family", subject: "alice", role: .owner, client: client, logger: logger)
    /// ```
    public static func add(space: String, subject: String, role: SpaceRole, client: PostgresClient, logger: Logger) async throws {
        try await explained {
            try await client.transaction(logger: logger) { connection in
                try await add(space: space, subject: subject, role: role, by: nil, connection: connection, logger: logger)
            }
        }
    }

    /// ``add(space:subject:role:client:logger:)`` in the caller's transaction; with `caller`,
    /// only for an owner of an existing space (the members API).
    static func add(space: String, subject: String, role: SpaceRole, by caller: String?, connection: PostgresConnection,
                    logger: Logger) async throws {
        try checkName(space)
        try checkSubject(subject)
        var id = try await lock(space, connection: connection, logger: logger)
        if id == nil, caller != nil { throw MemberRefusal(.notFound, "no space named \"\(space)\"") }
        if id == nil {
            guard !space.hasPrefix(UserSpaces.prefix) else {
                throw MemberRefusal(.notFound, "no space named \"\(space)\": a personal space is made by its user's first request, not by add-member")
            }
            guard role == .owner else {
                throw MemberRefusal(.invalid, "space \"\(space)\" has no members yet: its first member must be an owner, not a \(role.rawValue)")
            }
            try await connection.query("INSERT INTO sync_spaces (name) VALUES (\(space)) ON CONFLICT (name) DO NOTHING", logger: logger)
            id = try await lock(space, connection: connection, logger: logger)
        }
        guard let id else { throw MemberRefusal(.notFound, "space \"\(space)\" could not be made") }
        let members = try await list(space: id, connection: connection, logger: logger)
        try checkOwner(caller, of: space, members: members)
        if members.isEmpty, role != .owner {
            throw MemberRefusal(.invalid, "space \"\(space)\" has no members yet: its first member must be an owner, not a \(role.rawValue)")
        }
        if let current = members[subject], current == .owner, role != .owner {
            try await checkOwnerMayLeave(space: space, id: id, subject: subject, members: members, change: "be made a \(role.rawValue)",
                                         connection: connection, logger: logger)
        }
        try await connection.query("""
            INSERT INTO sync_members (space, subject, role) VALUES (\(id), \(subject), \(role.rawValue))
            ON CONFLICT (space, subject) DO UPDATE SET role = excluded.role
            """, logger: logger)
        if members[subject] != role { try await notifySpacesChanged(of: subject, connection: connection, logger: logger) }
    }

    /// Makes the shared space `space` with `owner` as its owner, in the caller's transaction
    /// (`POST v1/spaces`); true when made, false when `owner` already owns it (a retry).
    /// Refused when it exists otherwise, whoever made it. The name is checked first
    /// (``checkNewSpaceName(_:)``).
    static func make(space: String, owner: String, connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try checkNewSpaceName(space)
        try checkSubject(owner)
        // A space made at the same time by another request: the insert waits for its
        // transaction, then makes nothing, and the space is looked at as an existing one.
        var made: Int64?
        for try await id in try await connection.query(
            "INSERT INTO sync_spaces (name) VALUES (\(space)) ON CONFLICT (name) DO NOTHING RETURNING id", logger: logger
        ).decode(Int64.self) { made = id }
        if let made {
            try await connection.query("INSERT INTO sync_members (space, subject, role) VALUES (\(made), \(owner), 'owner')", logger: logger)
            try await notifySpacesChanged(of: owner, connection: connection, logger: logger)
            return true
        }
        guard let id = try await lock(space, connection: connection, logger: logger) else {
            throw MemberRefusal(.notFound, "space \"\(space)\" could not be made")
        }
        guard try await list(space: id, connection: connection, logger: logger)[owner] == .owner else {
            throw MemberRefusal(.invalid, "space \"\(space)\" exists already: choose another name, or ask one of its owners to add you")
        }
        return false
    }

    /// The spaces `subject` is a member of, with their role, by name (their personal space
    /// among them once made).
    static func spaces(of subject: String, connection: PostgresConnection, logger: Logger) async throws -> [SpaceMember] {
        var spaces: [SpaceMember] = []
        for try await (name, role) in try await connection.query("""
            SELECT s.name, m.role FROM sync_members m JOIN sync_spaces s ON s.id = m.space WHERE m.subject = \(subject) ORDER BY s.name
            """, logger: logger).decode((String, String).self) {
            guard let role = SpaceRole(rawValue: role) else {
                throw MemberRefusal(.invalid, "space \"\(name)\": member \"\(subject)\" has the unknown role \"\(role)\"")
            }
            spaces.append(SpaceMember(space: name, subject: subject, role: role))
        }
        return spaces
    }

    /// Removes `subject` from `space`. Refused for a space or member that does not exist, for
    /// the space's last owner, and for a personal space's own user.
    ///
    /// ```swift
    /// try await Members.remove(space: "family", subject: "bob", client: client, logger: logger)
    /// ```
    public static func remove(space: String, subject: String, client: PostgresClient, logger: Logger) async throws {
        try await explained {
            try await client.transaction(logger: logger) { connection in
                try await remove(space: space, subject: subject, by: nil, connection: connection, logger: logger)
            }
        }
    }

    /// ``remove(space:subject:client:logger:)`` in the caller's transaction; with `caller`, only
    /// for an owner of the space (the members API).
    static func remove(space: String, subject: String, by caller: String?, connection: PostgresConnection, logger: Logger) async throws {
        guard let id = try await lock(space, connection: connection, logger: logger) else {
            throw MemberRefusal(.notFound, "no space named \"\(space)\"")
        }
        let members = try await list(space: id, connection: connection, logger: logger)
        try checkOwner(caller, of: space, members: members)
        guard let role = members[subject] else {
            throw MemberRefusal(.notFound, "\"\(subject)\" is not a member of space \"\(space)\"")
        }
        if role == .owner {
            try await checkOwnerMayLeave(space: space, id: id, subject: subject, members: members, change: "be removed",
                                         connection: connection, logger: logger)
        }
        try await connection.query("DELETE FROM sync_members WHERE space = \(id) AND subject = \(subject)", logger: logger)
        try await notify(id, connection: connection, logger: logger)
        try await notifySpacesChanged(of: subject, connection: connection, logger: logger)
    }

    /// The members of `space`, or of every space when nil, by space name then subject. Throws
    /// for a space that does not exist.
    ///
    /// ```swift
    /// let readers = try await Members.list(space: "family", client: client, logger: logger).filter { $0.role == .reader }
    /// ```
    public static func list(space: String?, client: PostgresClient, logger: Logger) async throws -> [SpaceMember] {
        try await explained {
            try await client.withConnection { try await list(space: space, by: nil, connection: $0, logger: logger) }
        }
    }

    /// ``list(space:client:logger:)`` on a connection; with `caller`, only for a member of the space (the members API).
    static func list(space: String?, by caller: String?, connection: PostgresConnection, logger: Logger) async throws -> [SpaceMember] {
        if let space, try await lock(space, forUpdate: false, connection: connection, logger: logger) == nil {
            throw MemberRefusal(.notFound, "no space named \"\(space)\"")
        }
        let query: PostgresQuery
        if let space {
            query = """
                SELECT s.name, m.subject, m.role FROM sync_members m JOIN sync_spaces s ON s.id = m.space
                WHERE s.name = \(space) ORDER BY m.subject
                """
        } else {
            query = """
                SELECT s.name, m.subject, m.role FROM sync_members m JOIN sync_spaces s ON s.id = m.space
                ORDER BY s.name, m.subject
                """
        }
        let rows = try await connection.query(query, logger: logger)
        var members: [SpaceMember] = []
        for try await (name, subject, role) in rows.decode((String, String, String).self) {
            guard let role = SpaceRole(rawValue: role) else {
                throw MemberRefusal(.invalid, "space \"\(name)\": member \"\(subject)\" has the unknown role \"\(role)\"")
            }
            members.append(SpaceMember(space: name, subject: subject, role: role))
        }
        if let caller, let space, !members.contains(where: { $0.subject == caller }) {
            throw MemberRefusal(.forbidden, "\"\(caller)\" is not a member of space \"\(space)\"")
        }
        return members
    }

    /// Throws unless `caller` (nil: the operator) is an owner of the space whose `members` these are.
    private static func checkOwner(_ caller: String?, of space: String, members: [String: SpaceRole]) throws {
        guard let caller else { return }
        guard let role = members[caller] else {
            throw MemberRefusal(.forbidden, "\"\(caller)\" is not a member of space \"\(space)\"")
        }
        guard role == .owner else {
            throw MemberRefusal(.forbidden, "\"\(caller)\" is a \(role.rawValue) of space \"\(space)\": only an owner adds and removes members")
        }
    }

    /// Wakes the space's long polls, so that a member removed or made a reader is told at once
    /// (the notification is sent when the transaction commits).
    private static func notify(_ id: Int64, connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(Push.channel), \(String(id)))", logger: logger)
    }

    /// Wakes the long polls of `subject`'s personal space, if made, and ends them: their
    /// spaces changed, and a device waiting there asks for them again (``Notifier``; sent
    /// when the transaction commits).
    private static func notifySpacesChanged(of subject: String, connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            SELECT pg_notify(\(Push.channel), space::text || \(Notifier.spacesChangedSuffix)) FROM sync_users WHERE subject = \(subject)
            """, logger: logger)
    }

    /// Runs `body`, its refusals as the commands' errors.
    private static func explained<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let refusal as MemberRefusal { throw SyncServerError(refusal.description) }
    }

    /// The id of the space named `space` and `subject`'s role there; nil when it is not a member.
    static func role(of subject: String, in space: String, connection: PostgresConnection, logger: Logger) async throws -> (space: Int64, role: SpaceRole)? {
        var found: (Int64, SpaceRole)?
        for try await (id, role) in try await connection.query("""
            SELECT s.id, m.role FROM sync_spaces s JOIN sync_members m ON m.space = s.id WHERE s.name = \(space) AND m.subject = \(subject)
            """, logger: logger).decode((Int64, String).self) {
            found = SpaceRole(rawValue: role).map { (id, $0) }
        }
        return found
    }

    /// The id of the space named `name`, its row locked until the transaction ends (with
    /// `forUpdate`); nil when there is none.
    private static func lock(_ name: String, forUpdate: Bool = true, connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        let query: PostgresQuery = forUpdate
            ? "SELECT id FROM sync_spaces WHERE name = \(name) FOR UPDATE"
            : "SELECT id FROM sync_spaces WHERE name = \(name)"
        var id: Int64?
        for try await row in try await connection.query(query, logger: logger).decode(Int64.self) { id = row }
        return id
    }

    /// The members of the space `id` and their roles.
    private static func list(space id: Int64, connection: PostgresConnection, logger: Logger) async throws -> [String: SpaceRole] {
        var members: [String: SpaceRole] = [:]
        let rows = try await connection.query("SELECT subject, role FROM sync_members WHERE space = \(id)", logger: logger)
        for try await (subject, role) in rows.decode((String, String).self) { members[subject] = SpaceRole(rawValue: role) }
        return members
    }

    /// Throws unless the owner `subject` may stop being one: another owner remains, and the
    /// space is not `subject`'s personal space.
    private static func checkOwnerMayLeave(space: String, id: Int64, subject: String, members: [String: SpaceRole], change: String,
                                           connection: PostgresConnection, logger: Logger) async throws {
        var personal = false
        for try await _ in try await connection.query(
            "SELECT 1 FROM sync_users WHERE space = \(id) AND subject = \(subject)", logger: logger
        ).decode(Int.self) { personal = true }
        if personal {
            throw MemberRefusal(.invalid, "\"\(subject)\" cannot \(change) in space \"\(space)\": it is their personal space, which they always own")
        }
        guard members.contains(where: { $0.key != subject && $0.value == .owner }) else {
            throw MemberRefusal(.invalid, "\"\(subject)\" cannot \(change) in space \"\(space)\": they are its last owner (add another owner first)")
        }
    }

    /// Throws unless `space` may name a space made by `POST v1/spaces`: a valid name, not a
    /// personal space's.
    static func checkNewSpaceName(_ space: String) throws {
        try checkName(space)
        guard !space.hasPrefix(UserSpaces.prefix) else {
            throw MemberRefusal(.invalid, "invalid space name \"\(space)\": personal spaces are made by their user's first request")
        }
    }

    private static func checkName(_ space: String) throws {
        guard !space.isEmpty, space.utf8.count <= 200 else {
            throw MemberRefusal(.invalid, "invalid space name \"\(space)\": it must have 1 to 200 bytes")
        }
    }

    private static func checkSubject(_ subject: String) throws {
        guard !subject.isEmpty, subject.utf8.count <= UserSpaces.maxSubjectBytes else {
            throw MemberRefusal(.invalid, "invalid user \"\(subject)\": a subject has 1 to \(UserSpaces.maxSubjectBytes) bytes")
        }
    }
}
