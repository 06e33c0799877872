import GRDB

/// The shared spaces a file has synced (`swidux_sync_space(name, suffix, role)`): each
/// space's state tables are named with its suffix (``SyncSchema``), and `role` is the user's
/// role there as the server last listed it — `NULL` once the server no longer lists the space
/// (the user was removed from it): its rows stay on the device, read-only.
enum SyncSpaceRegistry {
    static let table = "swidux_sync_space"

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (name TEXT PRIMARY KEY NOT NULL, suffix TEXT NOT NULL UNIQUE, role TEXT)
            """)
    }

    /// The state tables' names of `space`, given a suffix the first time it is met.
    static func schema(of space: String, _ db: Database) throws -> SyncSchema {
        try create(db)
        if let recorded = try recordedSchema(of: space, db) { return recorded }
        // Numbered rather than named after the space: a name may hold any character.
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
        var number = count + 1
        while try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE suffix = ?", arguments: ["_s\(number)"]) ?? false { number += 1 }
        try db.execute(sql: "INSERT INTO \(table) (name, suffix) VALUES (?, ?)", arguments: [space, "_s\(number)"])
        return SyncSchema(suffix: "_s\(number)", space: space)
    }

    /// The state tables' names of `space`, `nil` when the file never synced it.
    static func recordedSchema(of space: String, _ db: Database) throws -> SyncSchema? {
        guard try db.tableExists(table) else { return nil }
        let suffix = try String.fetchOne(db.cachedStatement(sql: "SELECT suffix FROM \(table) WHERE name = ?"), arguments: [space])
        return suffix.map { SyncSchema(suffix: $0, space: space) }
    }

    /// The state tables' names of every shared space the file synced.
    static func schemas(_ db: Database) throws -> [SyncSchema] {
        guard try db.tableExists(table) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT name, suffix FROM \(table)").map { SyncSchema(suffix: $0[1], space: $0[0]) }
    }

    /// Records the roles the server listed: a space not listed keeps its row with no role.
    static func record(_ roles: [String: String], _ db: Database) throws {
        try create(db)
        for (space, role) in roles {
            _ = try schema(of: space, db)
            try db.execute(sql: "UPDATE \(table) SET role = ? WHERE name = ?", arguments: [role, space])
        }
        let listed = Set(roles.keys)
        for name in try String.fetchAll(db, sql: "SELECT name FROM \(table) WHERE role IS NOT NULL") where !listed.contains(name) {
            try db.execute(sql: "UPDATE \(table) SET role = NULL WHERE name = ?", arguments: [name])
        }
    }

    /// Records that the user is no longer a member of `space`.
    static func forget(_ space: String, _ db: Database) throws {
        try create(db)
        try db.execute(sql: "UPDATE \(table) SET role = NULL WHERE name = ?", arguments: [space])
    }

    /// Every space recorded, with the role last listed (`nil`: no longer a member).
    static func spaces(_ db: Database) throws -> [(name: String, role: String?)] {
        guard try db.tableExists(table) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT name, role FROM \(table) ORDER BY name").map { ($0[0], $0[1]) }
    }
}
