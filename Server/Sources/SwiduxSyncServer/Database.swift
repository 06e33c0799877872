import Logging
import PostgresNIO
import Synchronization

/// The server's PostgreSQL connection pool behind an availability gate, so that requests
/// fail fast with 503 while PostgreSQL is away and work again soon after it returns.
///
/// - The ``Notifier``'s LISTEN connection is the probe: a failed reconnection marks the
///   database unavailable (every request then gets 503 at once, and nothing waits on the
///   pool), a successful one marks it available again.
/// - After an outage the pool is replaced by a new one: postgres-nio's pool backs off its
///   reconnection attempts up to a minute, which would keep answering 503 long after
///   PostgreSQL is back.
/// - A request that gets no connection within `leaseTimeout`, or whose connection breaks,
///   is answered 503 too (``RequestFailure/unavailable``).
///
/// ```swift
/// let database = Database(configuration: url.clientConfiguration, leaseTimeout: .seconds(4), logger: logger)
/// group.addTask { await database.run() }
/// let space = try await database.withConnection { try await Tokens.space(of: token, connection: $0, logger: logger) }
/// ```
final class Database: Sendable {
    private struct State {
        var client: PostgresClient
        var runner: Task<Void, Never>?
        var available = true
        var stopped = false
    }

    private let state: Mutex<State>
    private let configuration: PostgresClient.Configuration
    private let leaseTimeout: Duration
    private let logger: Logger
    /// Where connection waits and lease time-outs are counted; nil: nowhere.
    private let metrics: SyncServerMetrics?

    init(configuration: PostgresClient.Configuration, leaseTimeout: Duration, metrics: SyncServerMetrics? = nil, logger: Logger) {
        self.metrics = metrics
        self.configuration = configuration
        self.leaseTimeout = leaseTimeout
        self.logger = logger
        state = Mutex(State(client: PostgresClient(configuration: configuration, backgroundLogger: logger)))
    }

    /// The current pool (for the start-up migration, before requests are served).
    var client: PostgresClient { state.withLock { $0.client } }

    /// Whether requests are let through to the pool.
    var isAvailable: Bool { state.withLock { $0.available } }

    /// Runs the pool, and the pools that replace it, until cancelled. `onStart` is called
    /// right before the first pool's `run()`: a lease before that logs a warning, so the
    /// start-up migration waits for it.
    func run(onStart: @escaping @Sendable () -> Void = {}) async {
        let first = state.withLock { state in
            let client = state.client
            state.runner = Task {
                onStart()
                await client.run()
            }
            return state.runner
        }
        await withTaskCancellationHandler {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        } onCancel: {
            state.withLock { state in
                state.stopped = true
                state.runner?.cancel()
            }
        }
        await first?.value
    }

    /// PostgreSQL did not accept a connection: requests get 503 until ``markAvailable()``.
    func markUnavailable() {
        let changed = state.withLock { state in
            defer { state.available = false }
            return state.available
        }
        if changed { logger.warning("PostgreSQL is unavailable: requests are answered 503 until it is back") }
    }

    /// PostgreSQL accepts connections (again): after an outage, a new pool replaces the old one.
    func markAvailable() {
        let replaced = state.withLock { state -> Bool in
            guard !state.available, !state.stopped else { return false }
            state.available = true
            state.runner?.cancel()
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            state.client = client
            state.runner = Task { await client.run() }
            return true
        }
        if replaced { logger.notice("PostgreSQL is available again (new connection pool)") }
    }

    /// Runs `body` on a pooled connection: 503 at once while the database is unavailable,
    /// when no connection is free within the lease timeout, or when the connection breaks.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let (client, available) = state.withLock { ($0.client, $0.available) }
        guard available else { throw RequestFailure.unavailable }
        let leased = LeaseFlag()
        let (timeout, metrics) = (leaseTimeout, self.metrics)
        let asked = ContinuousClock.now
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        leased.set()
                        metrics?.poolWait.record(duration: ContinuousClock.now - asked)
                        return try await body(connection)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    if !leased.isSet {
                        metrics?.poolTimeouts.increment()
                        throw RequestFailure.unavailable
                    }
                    return nil
                }
                while let result = try await group.next() {
                    if let result {
                        group.cancelAll()
                        return result
                    }
                }
                throw RequestFailure.unavailable
            }
        } catch {
            throw Self.isUnavailability(error) ? RequestFailure.unavailable : error
        }
    }

    /// ``withConnection(_:)`` in a transaction; the closure's own errors are rethrown as they
    /// were (postgres-nio wraps them), so that a refusal keeps its status and message.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = self.logger
        return try await withConnection { connection in
            do {
                return try await connection.withTransaction(logger: logger) { try await body($0) }
            } catch let error as PostgresTransactionError {
                if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
                throw error
            }
        }
    }

    /// Whether `error` says the database cannot be reached (rather than refusing a query).
    static func isUnavailability(_ error: any Error) -> Bool {
        if let failure = error as? RequestFailure { return failure.status == .serviceUnavailable }
        if let error = error as? PostgresTransactionError {
            return [error.beginError, error.closureError, error.commitError, error.rollbackError]
                .contains { $0.map(isUnavailability) ?? false }
        }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            return true
        case .server:
            // Class 08 (connection exception), 57P01-57P03 (shutting down, cannot connect now).
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        default:
            return false
        }
    }
}

/// Whether a request's connection was leased: shared by the request's task and its lease
/// timeout (a `Mutex` itself cannot be captured by the two tasks: it is not copyable).
private final class LeaseFlag: Sendable {
    private let leased = Mutex(false)
    var isSet: Bool { leased.withLock { $0 } }
    func set() { leased.withLock { $0 = true } }
}
