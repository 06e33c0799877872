import GRDB

extension SwiduxDatabase {
    /// Loads every entity of `table` into an `EntityStore`, in stored order, recording
    /// no changes (nothing to write back).
    ///
    /// ```swift
    /// state.todos = try await database.hydrate(AppDatabase.todos)
    /// ```
    ///
    /// Several `async let` hydrations run in parallel on a file database (one reader
    /// connection each); use ``hydrateAll(_:)`` when the tables must come from the same
    /// flush (entities that reference each other).
    ///
    /// - Throws: ``SwiduxDatabaseError``, e.g. ``SwiduxDatabaseError/Cause/undecodable(table:)``
    ///   when a stored row no longer decodes into `Entity`.
    public func hydrate<Entity>(_ table: EntityTable<Entity>) async throws -> EntityStore<Entity> {
        try await guarded { try await writer.read { db in try self.journaled(db) { try table.fetchStore(db) } } }
    }

    /// The synchronous form of ``hydrate(_:)-6hsk8``, for app start-up code that cannot await.
    ///
    /// ```swift
    /// let todos = try database.hydrate(AppDatabase.todos)
    /// ```
    public func hydrate<Entity>(_ table: EntityTable<Entity>) throws -> EntityStore<Entity> {
        try guarded { try writer.read { db in try self.journaled(db) { try table.fetchStore(db) } } }
    }

    /// Loads several tables from **one snapshot**: all of them as of the same completed
    /// flush, so references between them are consistent.
    ///
    /// ```swift
    /// (state.lists, state.items) = try await database.hydrateAll(AppDatabase.lists, AppDatabase.items)
    /// ```
    public func hydrateAll<each Entity>(
        _ tables: repeat EntityTable<each Entity>
    ) async throws -> (repeat EntityStore<each Entity>) {
        try await guarded {
            try await writer.read { db in
                try self.journaled(db) { (repeat try (each tables).fetchStore(db)) }
            }
        }
    }

    /// Runs your own hydration read (several tables, custom requests) in one snapshot, and
    /// notes the change-journal position it saw, so that `store.follow(database)` replays
    /// from there instead of re-reading every table.
    ///
    /// ```swift
    /// let state = try database.hydrate { db in
    ///     AppState(lists: try AppDatabase.lists.fetchStore(db), items: try AppDatabase.items.fetchStore(db))
    /// }
    /// ```
    public func hydrate<T>(_ read: (Database) throws -> T) throws -> T {
        try guarded { try writer.read { db in try self.journaled(db) { try read(db) } } }
    }

    /// The generic `hydrate(_:)` on a database queue, awaited: the caller's actor is free meanwhile.
    func hydrateOffMainActor(_ read: @escaping @Sendable (Database) throws -> [any Sendable]) async throws -> [any Sendable] {
        try await guarded { try await writer.read { db in try self.journaled(db) { try read(db) } } }
    }

    /// Runs a hydration read and notes the journal sequence it saw: a feed started later
    /// replays from there (see ``ChangeFeed``).
    private func journaled<T>(_ db: Database, _ read: () throws -> T) throws -> T {
        let value = try read()
        journal.hydrated(at: try ChangeJournal.lastSequence(db))
        return value
    }
}
