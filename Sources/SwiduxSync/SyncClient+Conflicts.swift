import Foundation
import GRDB
import Logging
import SwiduxSQLite
import SwiduxSyncWire

// MARK: - Merge by column

extension SyncClient {
    /// This device's open conflicts, oldest first: its values that another device's later
    /// push replaced without having seen them, kept until dismissed (`dismiss(_:)`).
    ///
    /// ```swift
    /// for conflict in try await client.conflicts() {
    ///     print("\(conflict.column) of \(conflict.table) \(conflict.id.key): \(conflict.replaced) was replaced by \(conflict.kept)")
    /// }
    /// ```
    ///
    /// - Throws: ``SyncError/local(_:)`` when the database cannot be read.
    public func conflicts() throws -> [SyncConflict] {
        try local { try engine.openConflicts() }
    }

    /// Forgets conflicts (the replaced values stay lost unless the app wrote them back).
    ///
    /// ```swift
    /// try await client.dismiss(client.conflicts())
    /// ```
    public func dismiss(_ conflicts: [SyncConflict]) throws {
        _ = try local { try engine.dismiss(conflicts.map(\.serial)) }
    }

    /// Forgets one conflict.
    ///
    /// ```swift
    /// try await client.dismiss(conflict)
    /// ```
    public func dismiss(_ conflict: SyncConflict) throws {
        try dismiss([conflict])
    }

    /// Sets what resolves the conflicts of `table` (`nil`: none, the default — the later push
    /// wins and the replaced value stays listed). For each conflicting column it is given this
    /// device's value and the other's (``SyncMerge``) once the row holds the other's; the value
    /// it returns is written to the row, and pushed as an ordinary change, when the row does
    /// not hold it already, and the conflict is forgotten. Returning `nil` leaves it listed.
    ///
    /// ```swift
    /// // Keep the larger quantity, and both texts of a note.
    /// await client.setResolver(for: "item") { merge in
    ///     switch (merge.column, merge.mine, merge.theirs) {
    ///     case ("quantity", .integer(let mine), .integer(let theirs)): .integer(max(mine, theirs))
    ///     case ("note", .text(let mine), .text(let theirs)): .text(theirs + "\n" + mine)
    ///     default: nil
    ///     }
    /// }
    /// ```
    public func setResolver(for table: String, _ resolver: SyncConflictResolver?) {
        engine.resolvers.withLock { $0[table] = resolver }
    }

    /// Sets what renames a row of `table` whose unique index clashes with another device's
    /// row (`nil`: the default, ``SyncUniqueClash/defaultRename``, which appends `" (2)"` — or
    /// the first free number — to the index's text column). Of the two rows, the later one in
    /// the server's order is renamed, on whichever device meets the clash first; the rename is
    /// pushed like an edit and listed as a conflict of kind `.renamed` (``SyncConflict``).
    /// Set it before the first sync, the same on every device: each device that meets a clash
    /// renames with its own.
    ///
    /// ```swift
    /// // The unique column is a key derived from the shown name: rename both.
    /// client.setUniqueRenamer(for: "todoList") { clash in
    ///     guard case .text(let name)? = clash.columns["name"] else { return nil }
    ///     let renamed = "\(name) (\(clash.number))"
    ///     return .init(column: "name", value: .text(renamed), also: ["nameKey": .text(renamed.lowercased())])
    /// }
    /// ```
    public nonisolated func setUniqueRenamer(for table: String, _ renamer: SyncUniqueRenamer?) {
        engine.renamers.withLock { $0[table] = renamer }
    }

    /// The open conflicts of a database synced by a ``SyncClient`` (none when it never synced),
    /// without a client: for a command that lists them offline.
    ///
    /// ```swift
    /// let open = try SyncClient.conflicts(in: database)
    /// ```
    public static func conflicts(in database: SwiduxDatabase) throws -> [SyncConflict] {
        do {
            return try database.writer.read { db in
                guard try db.tableExists(SyncSchema.conflicts) else { return [] }
                return try SyncEngine.conflicts(db)
            }
        } catch {
            throw SyncError.local(error)
        }
    }

    /// Forgets conflicts of a database without a client (``conflicts(in:)``); returns how many
    /// were open.
    ///
    /// ```swift
    /// try SyncClient.dismiss(SyncClient.conflicts(in: database), in: database)
    /// ```
    @discardableResult
    public static func dismiss(_ conflicts: [SyncConflict], in database: SwiduxDatabase) throws -> Int {
        do {
            return try database.writer.write { db in
                guard try db.tableExists(SyncSchema.conflicts) else { return 0 }
                var count = 0
                for conflict in conflicts {
                    try db.execute(sql: "DELETE FROM \(SyncSchema.conflicts) WHERE id = ?", arguments: [conflict.serial])
                    count += db.changesCount
                }
                return count
            }
        } catch {
            throw SyncError.local(error)
        }
    }

    /// Fetches this client's conflicts the server recorded since the last fetch (when an
    /// answer showed one past it), stores them, runs the resolvers, and reports on
    /// ``newConflicts`` those left open; returns them.
    func fetchConflicts() async throws -> [SyncConflict] {
        var fresh: [SyncConflict] = []
        let mark = conflictMark
        if try mark > local({ try engine.conflictCursor() }) {
            let clientID = try local { try engine.clientID() }
            var after = try local { try engine.conflictCursor() }
            while true {
                let page = try await transport.send(
                    "GET", SyncProtocol.conflictsPath,
                    query: [URLQueryItem(name: "client", value: clientID), URLQueryItem(name: "after", value: String(after)),
                            URLQueryItem(name: "limit", value: "1000")],
                    as: ConflictsResponse.self)
                fresh += try local { try engine.store(page, through: mark) }
                if !page.hasMore || page.cursor <= after { break }
                after = page.cursor
            }
        }
        let resolved = try local { try engine.resolveConflicts() }
        // Rows the pulls renamed (a unique index clashed) are reported like conflicts.
        let open = try local { try engine.takeNewRenames() } + fresh.filter { !resolved.contains($0.serial) }
        for conflict in open { conflictContinuation.yield(conflict) }
        return open
    }

    /// Fills the columns a migration added to synced tables since they were last synced:
    /// each such table's rows are pulled again (`GET /v1/pull?tables=`), and the new columns
    /// of the rows this client holds written. Returns the rows written.
    func refillColumns() async throws -> Int {
        var written = 0
        for (table, start) in try local({ try engine.pendingRefills() }) {
            var after = start
            while !Task.isCancelled {
                let page = try await transport.send(
                    "GET", SyncProtocol.pullPath,
                    query: [URLQueryItem(name: "after", value: String(after)), URLQueryItem(name: "limit", value: String(pageSize)),
                            URLQueryItem(name: "wait", value: "0"), URLQueryItem(name: "tables", value: table.name)],
                    timeout: 30, reading: WireReader.pullResponse)
                written += try await exclusive.withLock { try local { try engine.refill(page, table: table) } }
                if !page.hasMore { break }
                after = page.cursor
            }
        }
        return written
    }
}

extension SyncClient {
    /// The server's base URL this client talks to.
    ///
    /// ```swift
    /// print("syncing with \(client.server)")
    /// ```
    public nonisolated var server: URL { transport.server }
}
