import CoreMetrics
import Prometheus

/// What a sync server counts, in Prometheus form (swift-metrics over swift-prometheus):
/// requests by route and status with their latency, open long polls, rows applied and
/// refused, conflicts, and waits for a PostgreSQL connection.
///
/// `serve --metrics-port N` serves ``registry`` as text at `GET /metrics` on its own listener
/// (127.0.0.1 unless told otherwise), apart from the sync routes. A server embedded in an app
/// can share the app's registry instead:
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// var server = SyncServer(postgres: url, port: 8080)
/// server.metrics = SyncServerMetrics(registry: registry)
/// // later: registry.emitToString()
/// ```
///
/// Every metric is made with this object's own factory, so two servers in one process never
/// mix their counts (swift-metrics' global bootstrap is left to the app).
public final class SyncServerMetrics: Sendable {
    /// The collector the metrics are registered in.
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    /// Open long polls (a pull with `wait` above 0, until it answers).
    let openPolls: CoreMetrics.Meter
    /// Changes a push applied.
    let rowsApplied: CoreMetrics.Counter
    /// Changes a push did not apply (a stale update after a delete, a row set aside).
    let rowsRefused: CoreMetrics.Counter
    /// Values a later push replaced (listed for their writer).
    let conflicts: CoreMetrics.Counter
    /// How long requests waited for a PostgreSQL connection.
    let poolWait: CoreMetrics.Timer
    /// Requests answered 503 because no connection came within the lease timeout.
    let poolTimeouts: CoreMetrics.Counter

    /// Metrics registered in `registry` (a new one by default).
    ///
    /// ```swift
    /// let metrics = SyncServerMetrics()
    /// print(metrics.registry.emitToString())
    /// ```
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [
            Self.requestDuration: [.milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                                   .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5), .seconds(30)],
            "swidux_postgres_connection_wait_seconds": [.microseconds(100), .milliseconds(1), .milliseconds(5), .milliseconds(25),
                                                        .milliseconds(100), .milliseconds(500), .seconds(2), .seconds(10)],
        ]
        self.factory = factory
        openPolls = CoreMetrics.Meter(label: "swidux_open_long_polls", factory: factory)
        rowsApplied = CoreMetrics.Counter(label: "swidux_rows_applied_total", factory: factory)
        rowsRefused = CoreMetrics.Counter(label: "swidux_rows_refused_total", factory: factory)
        conflicts = CoreMetrics.Counter(label: "swidux_conflicts_total", factory: factory)
        poolWait = CoreMetrics.Timer(label: "swidux_postgres_connection_wait_seconds", factory: factory)
        poolTimeouts = CoreMetrics.Counter(label: "swidux_postgres_connection_timeouts_total", factory: factory)
    }

    static let requestDuration = "swidux_http_request_duration_seconds"

    /// Counts an answered request and its latency.
    func request(route: String, method: String, status: Int, took: Duration) {
        CoreMetrics.Counter(label: "swidux_http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory).increment()
        CoreMetrics.Timer(label: Self.requestDuration, dimensions: [("route", route), ("method", method)], factory: factory)
            .record(duration: took)
    }

    /// The Prometheus text exposition of every metric.
    func text() -> [UInt8] { registry.emitToBuffer() }
}
