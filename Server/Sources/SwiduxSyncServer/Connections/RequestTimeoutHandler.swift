import Logging
import NIOCore
import NIOHTTPTypes

/// Closes the connection when a request's head and body do not arrive in full within
/// `timeout` from its head: a client sending its body slowly (or never finishing it)
/// cannot hold a connection for long. A connection idle before or between requests, or
/// stalled inside a request head, is closed by the server's idle timeout; the time to answer
/// a request (a long poll) is not limited here.
///
/// ```swift
/// HTTP1Channel.Configuration(additionalChannelHandlers: [RequestTimeoutHandler(timeout: .seconds(60), logger: logger)])
/// ```
final class RequestTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private let logger: Logger
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            timer?.cancel()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let (logger, timeout) = (self.logger, self.timeout)
            timer = context.eventLoop.scheduleTask(in: timeout) {
                logger.debug("a request's body did not arrive in time: connection closed",
                             metadata: ["timeout": "\(timeout)"])
                bound.value.close(promise: nil)
            }
        case .body:
            break
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }
}
