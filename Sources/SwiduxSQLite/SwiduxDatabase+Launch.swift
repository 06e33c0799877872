import Dispatch
import GRDB
import Logging

extension SwiduxDatabase {
    /// Opens, checks and migrates the database file off the caller's actor: the main actor
    /// stays free to draw a launch screen meanwhile. Same as
    /// ``init(path:migrations:configuration:access:integrityCheck:)``, on a background
    /// queue, with a bounded integrity check by default.
    ///
    /// ```swift
    /// let database = try await SwiduxDatabase.open(path: url.path, migrations: .app)
    /// var state = AppState()
    /// let persistence = try await database.persistence(hydratingInBackground: &state, [.entities(\.items, in: AppDatabase.items)])
    /// ```
    ///
    /// - Parameters:
    ///   - path: the database file (its directory must exist).
    ///   - migrations: the app's migrations, run when the file needs them.
    ///   - configuration: GRDB's configuration (``defaultConfiguration`` by default).
    ///   - access: what may be done with the file (``Access/create`` by default).
    ///   - integrityCheck: ``IntegrityCheck/afterUncleanShutdown`` by default.
    /// - Throws: ``SwiduxDatabaseError`` naming the file and the cause.
    public static func open(
        path: String,
        migrations: SwiduxMigrations,
        configuration: Configuration = SwiduxDatabase.defaultConfiguration,
        access: Access = .create,
        integrityCheck: IntegrityCheck = .afterUncleanShutdown
    ) async throws -> SwiduxDatabase {
        let configuration = UncheckedConfiguration(value: configuration)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result {
                    try SwiduxDatabase(path: path, migrations: migrations, configuration: configuration.value,
                                       access: access, integrityCheck: integrityCheck)
                })
            }
        }
    }

    /// Runs `PRAGMA quick_check` now, off the caller's actor (for ``IntegrityCheck/never``
    /// or ``IntegrityCheck/afterUncleanShutdown``: a settings screen, a background task).
    ///
    /// ```swift
    /// do { try await database.checkIntegrity() } catch { showRestoreFromBackup(error) }
    /// ```
    ///
    /// - Throws: ``SwiduxDatabaseError`` with ``SwiduxDatabaseError/Cause/corrupt`` naming
    ///   the damaged pages.
    public func checkIntegrity() async throws {
        let path = path
        try await guarded {
            try await writer.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if integrity != ["ok"] {
                    throw SwiduxDatabaseError(path: path, cause: .corrupt, underlying: IntegrityCheckFailure(messages: integrity))
                }
            }
        }
    }

    /// ``persistence(hydrating:_:debounce:clock:logger:retry:)`` with the hydration read
    /// off the main actor (the rows are fetched on a database queue; only assigning them
    /// to `state` runs on the main actor).
    ///
    /// ```swift
    /// var state = AppState()
    /// let persistence = try await database.persistence(hydratingInBackground: &state, [.entities(\.items, in: AppDatabase.items)])
    /// store = Store(initialState: state, reducer: AppReducer(), environment: env, persistence: persistence)
    /// ```
    @MainActor
    public func persistence<State>(
        hydratingInBackground state: inout State,
        _ stores: [PersistedEntities<State>],
        debounce: Duration = .milliseconds(250),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "swidux.persistence"),
        retry: RetryPolicy = .default
    ) async throws -> PersistenceMiddleware<State> {
        Self.checkDistinctTables(stores)
        let fetches = stores.map(\.mapping.fetch)
        let fetched = try await hydrateOffMainActor { db in try fetches.map { try $0(db) } }
        return makePersistence(assigning: fetched, to: &state, stores, debounce: debounce, clock: clock, logger: logger, retry: retry)
    }
}

/// GRDB's `Configuration` is not `Sendable` (it holds closures); it is only read.
private struct UncheckedConfiguration: @unchecked Sendable {
    let value: Configuration
}
