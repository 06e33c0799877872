import GRDB
import Logging

extension SwiduxDatabase {
    /// The one call that persists your state: hydrates every listed entity store into
    /// `state` — from **one snapshot**, so entities that reference each other come from the
    /// same flush — and returns the `PersistenceMiddleware` that writes them back, one
    /// transaction per flush.
    ///
    /// ```swift
    /// let database = try SwiduxDatabase(path: url.path, migrations: AppDatabase.migrations)
    /// var state = AppState()
    /// let persistence = try database.persistence(hydrating: &state, [
    ///     .entities(\.items, in: AppDatabase.items),   // references lists: listed first
    ///     .entities(\.lists, in: AppDatabase.lists),
    /// ])
    /// let store = Store(initialState: state, reducer: AppReducer(), environment: env, persistence: persistence)
    /// ```
    ///
    /// The tables must exist: create them in a migration (`db.createEntityTable(_:)`).
    ///
    /// **Order.** The writers flush in the listed order, inside one transaction whose
    /// foreign-key checks are deferred to the commit: insertions and updates work in any
    /// order, and so do deletions under `ON DELETE NO ACTION` (the default) and `RESTRICT`.
    /// `CASCADE` and `SET NULL` act when the parent row is deleted: list the **referencing**
    /// tables (children) **before** the tables they reference, so that a child's own
    /// deletion runs first (parents first, a cascade deletes the child before its own
    /// deletion, which then finds nothing — harmless, reported to `onVanished`; `SET NULL`
    /// on a `NOT NULL` column makes the flush fail). Children first works with every action.
    ///
    /// Equivalent to ``hydrateAll(_:)`` followed by one ``stateWriter(for:table:)`` per
    /// store, which remain available.
    ///
    /// - Parameters:
    ///   - state: The state to hydrate; each listed entity store is replaced by its table's
    ///     rows, in stored order, recording nothing. Other properties are left alone.
    ///   - stores: The persisted entity stores, in flush order; one table each.
    ///   - debounce: The batching window (250 ms by default).
    ///   - clock: The clock of the window and the retries.
    ///   - logger: Logs flushes and failures.
    ///   - retry: Backoff for failed flushes.
    /// - Throws: ``SwiduxDatabaseError`` (e.g. ``SwiduxDatabaseError/Cause/undecodable(table:)``);
    ///   `state` is then left unchanged.
    /// - Precondition: No table is listed twice.
    @MainActor
    public func persistence<State>(
        hydrating state: inout State,
        _ stores: [PersistedEntities<State>],
        debounce: Duration = .milliseconds(250),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "swidux.persistence"),
        retry: RetryPolicy = .default
    ) throws -> PersistenceMiddleware<State> {
        Self.checkDistinctTables(stores)
        let fetches = stores.map(\.mapping.fetch)
        // Notes the change-journal position too, for `store.follow(database)`.
        let fetched: [any Sendable] = try hydrate { db in try fetches.map { try $0(db) } }
        return makePersistence(assigning: fetched, to: &state, stores, debounce: debounce, clock: clock, logger: logger, retry: retry)
    }

    /// Stops on a table listed twice (two writers would race for its rows).
    static func checkDistinctTables<State>(_ stores: [PersistedEntities<State>]) {
        var seen = Set<String>()
        for store in stores {
            precondition(seen.insert(store.tableName).inserted,
                         "SwiduxDatabase.persistence: the table \(store.tableName) is listed twice")
        }
    }

    /// Assigns each store's hydrated value to `state`, then makes the middleware of their writers.
    @MainActor
    func makePersistence<State>(
        assigning fetched: [any Sendable], to state: inout State, _ stores: [PersistedEntities<State>],
        debounce: Duration, clock: any Clock<Duration>, logger: Logger, retry: RetryPolicy
    ) -> PersistenceMiddleware<State> {
        for (store, value) in zip(stores, fetched) { store.mapping.assign(value, to: &state) }
        return PersistenceMiddleware(
            writers: stores.map { $0.mapping.writer(on: self) },
            debounce: debounce,
            clock: clock,
            logger: logger,
            retry: retry
        )
    }
}
