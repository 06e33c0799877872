import Logging
import NIOCore
import NIOHTTPTypes

/// Admits a new connection by its client address (``ConnectionCounts``): while the address
/// has fewer than `limit` connections that have not yet authenticated, the connection is
/// counted; past that it is admitted on probation. A connection on probation is closed when
/// no request head has arrived within ``probationWindow``, and when its first request's head
/// carries no `Authorization` header; a request of it whose token does not authenticate is
/// answered 429 with `Connection: close` (``Routes``), and closed once that answer is written.
/// So one address cannot
/// take every connection the server can hold without signing in, yet thousands of users
/// behind one address (a carrier's NAT) each connect and authenticate.
///
/// ```swift
/// let counts = ConnectionCounts(limit: 64)
/// HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionLimitHandler(counts: counts, logger: logger)])
/// ```
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// How long a connection on probation may take to send its first request's head: a real
    /// client sends its request as soon as it connects.
    static let probationWindow: TimeAmount = .seconds(2)

    private let counts: ConnectionCounts
    private let logger: Logger
    /// Whether this connection is known to `counts` (it has a client address).
    private var registered = false
    private var timer: Scheduled<Void>?
    /// The answer being written refuses a connection on probation: close once it is written.
    private var closeAfterAnswer = false

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
            logger.debug("a connection past its address's limit sent no request in time: closed",
                         metadata: ["address": "\(address)", "limit": "\(limit)"])
            bound.value.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let timer, case .head(let head) = unwrapInboundIn(data) {
            // The first head arrived: the route decides whether its token authenticates.
            timer.cancel()
            self.timer = nil
            if head.headerFields[.authorization] == nil, counts.isOnProbation(ObjectIdentifier(context.channel)) {
                logger.debug("a connection past its address's limit sent a request without a token: closed",
                             metadata: ["limit": "\(counts.limit)"])
                context.close(promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closeAfterAnswer = head.status == .tooManyRequests && head.headerFields[.connection] == "close"
                && counts.isOnProbation(ObjectIdentifier(context.channel))
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closeAfterAnswer else { return context.write(data, promise: promise) }
            closeAfterAnswer = false
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(data).whenComplete { result in
                promise?.completeWith(result)
                bound.value.close(promise: nil)
            }
        }
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
