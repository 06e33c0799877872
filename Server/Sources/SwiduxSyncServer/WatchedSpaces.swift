import Hummingbird
import Logging
import PostgresNIO
import SwiduxSyncWire

/// The shared spaces a long poll watches besides its own (``SwiduxSyncWire/SyncProtocol/watchParameter``):
/// a device keeps one long poll, on its user's personal space, which ends as soon as one of the
/// spaces it follows holds a row past the cursor it holds for it.
///
/// Only the spaces the caller (a JWT user) is a member of are watched, checked once when the
/// poll starts; any other is left out without a word, so that a poll tells nothing of spaces
/// its caller may not read (a membership removed later ends the poll through the personal
/// space's notification).
///
/// ```swift
/// let items = try WatchedSpaces.items(request.uri.queryParameters)
/// let (watched, news) = try await WatchedSpaces.resolve(items, subject: "bob", connection: connection, logger: logger)
/// ```
struct WatchedSpaces: Sendable {
    /// One `watch` item: a space's name and the cursor the device holds for it.
    struct Item: Sendable, Equatable {
        var name: String
        var cursor: Int64
    }

    /// The watched spaces' ids (the caller is a member of each) and their cursors, in the same order.
    private(set) var spaces: [Int64] = []
    private(set) var cursors: [Int64] = []

    var isEmpty: Bool { spaces.isEmpty }

    /// The query's `watch` items: 400 naming a malformed item, or the limit
    /// (``SwiduxSyncWire/SyncProtocol/maxWatchedSpaces``) when there are more.
    static func items(_ query: Parameters) throws -> [Item] {
        let texts = query.getAll(SyncProtocol.watchParameter)
        guard texts.count <= SyncProtocol.maxWatchedSpaces else {
            throw RequestFailure.badRequest(
                "too many \(SyncProtocol.watchParameter) items: \(texts.count) (at most \(SyncProtocol.maxWatchedSpaces) spaces per pull)")
        }
        return try texts.map { text in
            guard let item = item(text) else {
                throw RequestFailure.badRequest(
                    "malformed \(SyncProtocol.watchParameter) item \"\(text.prefix(250))\": expected <cursor>:<space name>, "
                    + "a cursor in 0...\(Int64.max) and a name of 1 to 200 bytes")
            }
            return item
        }
    }

    /// One item, split at its first colon; nil when malformed.
    static func item(_ text: String) -> Item? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let (digits, name) = (text[..<colon], text[text.index(after: colon)...])
        // Digits only: `Int64` alone would also take a sign.
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let cursor = Int64(digits), (1...200).contains(name.utf8.count) else { return nil }
        return Item(name: String(name), cursor: cursor)
    }

    /// The items' spaces that `subject` is a member of (any role), and whether one of them
    /// already holds a row past its cursor: one query, reading each space's newest version
    /// through the `(space, version)` index.
    static func resolve(_ items: [Item], subject: String, connection: PostgresConnection, logger: Logger) async throws
        -> (watched: WatchedSpaces, news: Bool) {
        // A name holding a NUL byte cannot be a space's (PostgreSQL's text has none): left out like any other.
        let items = items.filter { !$0.name.utf8.contains(0) }
        guard !items.isEmpty else { return (WatchedSpaces(), false) }
        let (names, cursors) = (items.map(\.name), items.map(\.cursor))
        var watched = WatchedSpaces()
        var news = false
        let rows = try await connection.query("""
            SELECT s.id, w.cursor, EXISTS (SELECT 1 FROM sync_rows r WHERE r.space = s.id AND r.version > w.cursor)
            FROM unnest(\(names)::text[], \(cursors)::bigint[]) AS w(name, cursor)
            JOIN sync_spaces s ON s.name = w.name
            JOIN sync_members m ON m.space = s.id AND m.subject = \(subject)
            """, logger: logger)
        for try await (space, cursor, ahead) in rows.decode((Int64, Int64, Bool).self) {
            watched.spaces.append(space)
            watched.cursors.append(cursor)
            news = news || ahead
        }
        return (watched, news)
    }

    /// Whether one of the watched spaces holds a row past its cursor now.
    func hasNews(connection: PostgresConnection, logger: Logger) async throws -> Bool {
        guard !isEmpty else { return false }
        let rows = try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM unnest(\(spaces)::bigint[], \(cursors)::bigint[]) AS w(space, cursor)
                           WHERE EXISTS (SELECT 1 FROM sync_rows r WHERE r.space = w.space AND r.version > w.cursor))
            """, logger: logger)
        for try await ahead in rows.decode(Bool.self) { return ahead }
        return false
    }
}
