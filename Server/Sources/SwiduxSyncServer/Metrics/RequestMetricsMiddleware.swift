import HTTPTypes
import Hummingbird

/// Counts every request by route, method and status with its latency (``SyncServerMetrics``),
/// and names the request's id in an `X-Request-Id` answer header — the id every log line of
/// the request carries (`hb.request.id`), so that an operator finds a client's failure in the log.
///
/// Hummingbird's own `MetricsMiddleware` records into swift-metrics' global factory; this one
/// records into the server's ``SyncServerMetrics``, so that servers in one process count apart.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: SyncServerMetrics

    static var requestIDHeader: HTTPField.Name { .requestID }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let method = request.method.rawValue
        do {
            var response = try await next(request, context)
            response.headers[Self.requestIDHeader] = context.id
            // Every answer's body is already in memory: its latency ends here (a long poll's includes its wait).
            metrics.request(route: context.endpointPath ?? "unknown", method: method, status: response.status.code,
                            took: ContinuousClock.now - started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.request(route: context.endpointPath ?? "unknown", method: method, status: status,
                            took: ContinuousClock.now - started)
            throw error
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: the request's id in the server's log.
    static let requestID = HTTPField.Name("X-Request-Id")!
}
