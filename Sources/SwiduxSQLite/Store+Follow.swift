import Foundation
import GRDB
import Logging

/// Following a database: changes other connections and processes commit reach the store.
extension Store {
    /// Follows `database`: what other processes and connections commit to the tables of
    /// this store's writers (built with ``SwiduxDatabase/stateWriter(for:table:)``) reaches
    /// the store through `applyExternalChanges(_:)` — not written back, observed row
    /// by row, never undone, and an id with a local change not yet flushed keeps its local
    /// value. Stops when the store goes away.
    ///
    /// Every store is its own writer: the flushes of another store on the same `database`
    /// (a second window) reach this one like another process's. Only the rows this store's
    /// flushes wrote are skipped as echoes; rows the database changed as a consequence of
    /// them (an `ON DELETE CASCADE`, a `SET NULL`, your own triggers) reach the store too.
    /// When another connection changes the schema (a rebuilt table), the journal's triggers
    /// are re-installed and the store is merged once with the whole file; a schema this app
    /// cannot read (a newer version migrated the file) is logged as an error and following
    /// stops.
    ///
    /// The rows a Swidux sync engine wrote (pulled from the server) arrive in a batch of
    /// their own, with origin `"sync (sqlite:PATH)"`: middleware sees them with
    /// `ActionSource.sync` (a `SessionRecorder` records them so), every other writer's
    /// with `ActionSource.external`.
    ///
    /// ```swift
    /// let store = Store(initialState: state, reducer: AppReducer(), environment: env, persistence: persistence)
    /// try store.follow(database)
    /// ```
    ///
    /// Installs the change journal for those tables when it is missing (a file created by an
    /// earlier version); the store is then merged once with the whole file, since changes
    /// made before were not journaled. Otherwise the feed replays from the journal sequence
    /// the store's hydration read, so nothing committed in between is missed. See
    /// <doc:ExternalChanges>.
    ///
    /// - Parameters:
    ///   - database: A file database (in memory, no other connection can write).
    ///   - interval: How often at the latest the feed checks for commits (default 1 s; commits of this process, and on Linux of others, wake it at once).
    ///   - logger: Where skipped journal entries (unknown table, undecodable id or row) and
    ///     read failures are logged (error).
    /// - Returns: The feed; ``ChangeFeed/cancel()`` stops following.
    /// - Throws: ``SwiduxDatabaseError``: no writer of this store's state was built on the
    ///   database (``SwiduxDatabaseError/Cause/other``), or the journal is missing and the
    ///   database is read-only (``SwiduxDatabaseError/Cause/readOnly``).
    @discardableResult
    public func follow(
        _ database: SwiduxDatabase,
        every interval: Duration = ChangeFeed.defaultInterval,
        logger: Logger = Logger(label: "swidux.external")
    ) throws -> ChangeFeed {
        let bindings = ownBindings(on: database)
        guard !bindings.isEmpty else {
            throw SwiduxDatabaseError(path: database.path, cause: .other, underlying: MappingMismatch(
                message: "store.follow: no StateWriter for \(State.self) was built on this database (database.stateWriter(for:table:))"))
        }
        let installed = try database.installJournal(bindings.map(\.feedTable))
        database.journal.logger = logger
        database.journal.beginFeed()
        let journal = database.journal
        let writers = Set(bindings.map { ObjectIdentifier($0.token) })
        let feed = ChangeFeed(
            database: database, tables: bindings.map(\.feedTable), writers: writers,
            cursor: installed ? nil : journal.replayCursor, interval: interval,
            keepRunning: { [weak self] in self != nil }, onEnd: { journal.endFeed() })
        Task { @MainActor [weak self] in
            for await batch in feed.batches {
                guard let self else { return }
                await self.takeIn(batch, from: database, bindings: bindings, writers: writers)
            }
        }
        return feed
    }

    /// Applies one batch of the feed, once no flush is in flight (its commit is then ordered
    /// with the batch's snapshot: rows it wrote after the snapshot are left out).
    private func takeIn(
        _ batch: ChangeFeedBatch, from database: SwiduxDatabase, bindings: [StateTableBinding<State>], writers: Set<ObjectIdentifier>
    ) async {
        let file = "sqlite:" + (database.path ?? "memory")
        // A sync engine's rows: "sync (sqlite:…)", which `ActionSource(externalOrigin:)` reads as `.sync`.
        let origin = batch.origin.map { "\($0) (\(file))" } ?? file
        for problem in batch.problems {
            database.journal.logger.error("Swidux change feed (\(origin)): \(problem); skipped")
        }
        while let persistence = persistenceMiddleware, persistence.isFlushing {
            try? await Task.sleep(for: .milliseconds(1))
        }
        var changes = ExternalChanges<State>(origin: origin)
        for binding in bindings { binding.add(batch, &changes, database.journal) }
        applyExternalChanges(changes)
        database.journal.forgetOwn(of: writers, through: batch.cursor)
    }

    /// The bindings of this store's writers on `database` (every store is its own writer:
    /// two stores on one database skip only their own writes). A store none of whose
    /// writers is known (built elsewhere) takes one binding per table and key path.
    private func ownBindings(on database: SwiduxDatabase) -> [StateTableBinding<State>] {
        let all = database.journal.bindings(of: StateTableBinding<State>.self)
        if let writers = persistenceMiddleware?.writers {
            let mine = all.filter { binding in writers.contains { $0 === binding.writer } }
            if !mine.isEmpty { return mine }
        }
        var distinct: [StateTableBinding<State>] = []
        for binding in all where !distinct.contains(where: { $0.isSameTarget(as: binding) }) { distinct.append(binding) }
        return distinct
    }
}
