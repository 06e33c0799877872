import Logging
import PostgresNIO

/// Bearer tokens: each opens one space. Stored only as their SHA-256 (PostgreSQL's `sha256()`).
///
/// ```swift
/// let token = try await Tokens.create(space: "family", client: client, logger: logger)
/// let space = try await Tokens.space(of: token, client: client, logger: logger)   // its space's id
/// ```
public enum Tokens {
    /// Creates the space `space` if it does not exist and a new token for it: 32 random
    /// bytes as 64 hex digits. Only its hash is stored; the token itself is returned once.
    ///
    /// ```swift
    /// print(try await Tokens.create(space: "family", client: client, logger: logger))
    /// ```
    public static func create(space: String, client: PostgresClient, logger: Logger) async throws -> String {
        guard !space.isEmpty, space.utf8.count <= 200 else {
            throw SyncServerError("invalid space name \"\(space)\": it must have 1 to 200 bytes")
        }
        guard !space.hasPrefix(UserSpaces.prefix) else {
            throw SyncServerError("invalid space name \"\(space)\": names starting with \"\(UserSpaces.prefix)\" are the personal spaces of JWT users, reachable only with their tokens")
        }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
        }.joined()
        try await client.transaction(logger: logger) { connection in
            try await connection.query("INSERT INTO sync_spaces (name) VALUES (\(space)) ON CONFLICT (name) DO NOTHING", logger: logger)
            try await connection.query("""
                INSERT INTO sync_tokens (hash, space)
                SELECT sha256(convert_to(\(token), 'UTF8')), id FROM sync_spaces WHERE name = \(space)
                """, logger: logger)
        }
        return token
    }

    /// Revokes `token`: from now on it gets 401. Throws when no token matches. The space's
    /// long polls are woken (a notification on ``Push/channel``), so that a poll opened
    /// with the token ends with 401 at once.
    ///
    /// ```swift
    /// try await Tokens.revoke(token, client: client, logger: logger)
    /// ```
    public static func revoke(_ token: String, client: PostgresClient, logger: Logger) async throws {
        let found = try await client.transaction(logger: logger) { connection in
            var spaces: [Int64] = []
            for try await space in try await connection.query(
                "UPDATE sync_tokens SET revoked = true WHERE hash = sha256(convert_to(\(token), 'UTF8')) RETURNING space",
                logger: logger
            ).decode(Int64.self) { spaces.append(space) }
            for space in spaces {
                try await connection.query("SELECT pg_notify(\(Push.channel), \(String(space)))", logger: logger)
            }
            return !spaces.isEmpty
        }
        guard found else { throw SyncServerError("no token matches the one given (nothing revoked)") }
    }

    /// The id of the space `token` opens, or `nil` for an unknown or revoked token.
    ///
    /// ```swift
    /// guard let space = try await Tokens.space(of: token, client: client, logger: logger) else { /* 401 */ }
    /// ```
    public static func space(of token: String, client: PostgresClient, logger: Logger) async throws -> Int64? {
        try await client.withConnection { try await space(of: token, connection: $0, logger: logger) }
    }

    /// ``space(of:client:logger:)`` on a connection.
    static func space(of token: String, connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        let rows = try await connection.query(
            "SELECT space FROM sync_tokens WHERE hash = sha256(convert_to(\(token), 'UTF8')) AND NOT revoked",
            logger: logger)
        var space: Int64?
        for try await id in rows.decode(Int64.self) { space = id }
        return space
    }
}
