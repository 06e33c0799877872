import Hummingbird

/// Hummingbird's request context plus the request's connection, so that a request that
/// authenticates takes its connection out of its address's count (``ConnectionCounts``).
///
/// ```swift
/// let router = Router(context: SyncRequestContext.self)
/// router.get("x") { _, context in counts.authenticated(context.connection); return "ok" }
/// ```
struct SyncRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's connection (its channel's identity).
    let connection: ObjectIdentifier

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        connection = ObjectIdentifier(source.channel)
    }
}
