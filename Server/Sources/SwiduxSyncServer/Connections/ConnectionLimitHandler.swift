import Logging
import NIOCore

/// Closes a new connection when its client address already has `limit` open ones, so that
/// one address cannot take every connection the server can hold. The
/// count is shared by every connection's handler (``ConnectionCounts``).
///
/// ```swift
/// let counts = ConnectionCounts(limit: 64)
/// HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionLimitHandler(counts: counts, logger: logger)])
/// ```
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let counts: ConnectionCounts
    private let logger: Logger
    /// The address counted for this connection (nil: not counted).
    private var address: String?

    init(counts: ConnectionCounts, logger: Logger) {
        self.counts = counts
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let address = context.channel.remoteAddress?.ipAddress else { return }
        if counts.open(address) {
            self.address = address
        } else {
            logger.debug("too many connections from one address: closed", metadata: ["address": "\(address)", "limit": "\(counts.limit)"])
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let address {
            counts.close(address)
            self.address = nil
        }
    }
}
