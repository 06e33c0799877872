import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// The sync server inside an operator's own Hummingbird application: its routes
/// (``addRoutes(to:)``) on the operator's router, and a `Service` that runs its connection
/// pool and its PostgreSQL notifications, in the operator's `ServiceGroup`. Made by
/// ``SyncServer/service()``, which migrates the schema first.
///
/// ```swift
/// var server = SyncServer(postgres: try PostgresURL("postgres://swidux@127.0.0.1/swidux"), port: 8080)
/// server.rules["item"] = { input in input.isDelete && input.role != .owner ? .refuse(reason: "only an owner deletes") : .accept }
/// let sync = try await server.service()
/// let router = Router()
/// router.get("health") { _, _ in "ok" }
/// sync.addRoutes(to: router)
/// let app = Application(router: router, configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
/// // Stopped in reverse order: open long polls are answered first, the pool last.
/// try await ServiceGroup(configuration: .init(services: [sync, app, sync.longPollCloser],
///                                             gracefulShutdownSignals: [.sigterm], logger: app.logger)).run()
/// ```
///
/// The standalone server (``SyncServer/run(stopOnSignals:onListening:)``) adds what an
/// embedding app does not get from these routes alone: its per-address connection limit,
/// request timeout, and a long poll's early answer when its client goes away (its channel
/// handlers), https, and the metrics listener.
public struct SyncService: Service {
    let routes: Routes
    let database: Database
    let notifier: Notifier
    let listen: PostgresConnection.Configuration
    let logger: Logger

    /// Adds the sync routes (`/v1/push`, `/v1/pull`, `/v1/tables`, `/v1/conflicts`, the
    /// members API) to `router`, whatever its request context.
    ///
    /// ```swift
    /// sync.addRoutes(to: router)
    /// ```
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        routes.add(to: router)
    }

    /// Runs the connection pool and the notifications that wake long polls, until graceful
    /// shutdown or cancellation.
    ///
    /// ```swift
    /// try await ServiceGroup(configuration: .init(services: [sync, app, sync.longPollCloser], logger: logger)).run()
    /// ```
    public func run() async throws {
        let (database, notifier, listen, logger) = (self.database, self.notifier, self.listen, self.logger)
        await withDiscardingTaskGroup { group in
            group.addTask { await database.run() }
            group.addTask { await notifier.run(configuration: listen, database: database, logger: logger) }
            try? await gracefulShutdown()
            await notifier.close()
            group.cancelAll()
        }
    }

    /// A service that answers the open long polls when graceful shutdown begins: list it
    /// after the application, so that it is told first and the application drains at once.
    ///
    /// ```swift
    /// ServiceGroup(configuration: .init(services: [sync, app, sync.longPollCloser], logger: logger))
    /// ```
    public var longPollCloser: some Service {
        let notifier = self.notifier
        return ShutdownHook { await notifier.close() }
    }
}
