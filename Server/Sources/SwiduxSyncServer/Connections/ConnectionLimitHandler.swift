import Logging
import NIOCore
import NIOHTTPTypes

/// Admits a new connection by its client address (``ConnectionCounts``): while the address
/// has fewer than `limit` connections that have not yet authenticated, the connection is
/// counted; past that it is admitted on probation. A connection on probation is closed when
/// its first request's head carries no `Authorization` header, and when no request of it has
/// authenticated within ``probationWindow``; a request of it whose token does not
/// authenticate is answered 429 and the connection closed (``Routes``). So one address cannot
/// take every connection the server can hold without signing in, yet thousands of users
/// behind one address (a carrier's NAT) each connect and authenticate.
///
/// ```swift
/// let counts = ConnectionCounts(limit: 64)
/// HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionLimitHandler(counts: counts, logger: logger)])
/// ```
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// How long a connection on probation may take to authenticate a request: a real client
    /// sends its request as soon as it connects, and its token is checked in one query.
    static let probationWindow: TimeAmount = .seconds(2)

    private let counts: ConnectionCounts
    private let logger: Logger
    /// Whether this connection is known to `counts` (it has a client address).
    private var registered = false
    private var timer: Scheduled<Void>?

    init(counts: ConnectionCounts, logger: Logger) {
        self.counts = counts
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let address = context.channel.remoteAddress?.ipAddress else { return }
        let connection = ObjectIdentifier(context.channel)
        registered = true
        guard counts.open(connection, address: address) == .probation else { return }
        let (bound, counts, logger) = (NIOLoopBound(context, eventLoop: context.eventLoop), self.counts, self.logger)
        let limit = counts.limit
        timer = context.eventLoop.scheduleTask(in: Self.probationWindow) {
            guard counts.isOnProbation(connection) else { return }
            logger.debug("a connection past its address's limit did not authenticate in time: closed",
                         metadata: ["address": "\(address)", "limit": "\(limit)"])
            bound.value.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if timer != nil, case .head(let head) = unwrapInboundIn(data), head.headerFields[.authorization] == nil,
           counts.isOnProbation(ObjectIdentifier(context.channel)) {
            logger.debug("a connection past its address's limit sent a request without a token: closed",
                         metadata: ["limit": "\(counts.limit)"])
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if registered {
            counts.close(ObjectIdentifier(context.channel))
            registered = false
        }
    }
}
