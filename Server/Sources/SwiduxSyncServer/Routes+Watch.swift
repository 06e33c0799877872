import Hummingbird
import SwiduxSyncWire

/// A long poll's watched spaces (``WatchedSpaces``): which there are, and whether one has news.
extension Routes {
    /// What a long poll watches: the spaces, their generations read after the check, and
    /// whether one of them already has news. Nothing for an opaque token's caller, whose
    /// items are left out without a word.
    func watching(_ items: [WatchedSpaces.Item], caller: Caller) async throws -> (WatchedSpaces, [Int64: UInt64], news: Bool) {
        guard !items.isEmpty, caller.user.hasPrefix(Self.jwtUserPrefix) else { return (WatchedSpaces(), [:], false) }
        let subject = String(caller.user.dropFirst(Self.jwtUserPrefix.count))
        let logger = self.logger
        // A commit after the query's snapshot whose notification arrived before the
        // generations were read would be missed: the count of notifications tells if one may have.
        let before = await notifier.notifications
        var (watched, news) = try await database.withConnection {
            try await WatchedSpaces.resolve(items, subject: subject, connection: $0, logger: logger)
        }
        let generations = await notifier.generations(of: watched.spaces)
        if !news, !watched.isEmpty, await notifier.notifications != before {
            news = try await hasNews(watched)
        }
        return (watched, generations, news)
    }

    /// Whether one of the watched spaces holds a row past its cursor now.
    func hasNews(_ watched: WatchedSpaces) async throws -> Bool {
        let logger = self.logger
        return try await database.withConnection { try await watched.hasNews(connection: $0, logger: logger) }
    }

    /// The start of a JWT caller's ``Caller/user``.
    static let jwtUserPrefix = "jwt:"
}
