import NIOCore
import NIOHTTPTypes

/// Tells ``ConnectionEnds`` when its connection starts and ends: the client closed it, or
/// closed its sending side (the server allows half-closed connections, so that only an
/// `inputClosed` event says so while a long poll is waiting), or the connection went away.
///
/// ```swift
/// HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionEndHandler(ends: ends)])
/// ```
final class ConnectionEndHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let ends: ConnectionEnds

    init(ends: ConnectionEnds) {
        self.ends = ends
    }

    func handlerAdded(context: ChannelHandlerContext) {
        ends.opened(ObjectIdentifier(context.channel))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event as? ChannelEvent == .inputClosed { ends.ended(ObjectIdentifier(context.channel)) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ends.ended(ObjectIdentifier(context.channel))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ends.ended(ObjectIdentifier(context.channel))
    }
}
