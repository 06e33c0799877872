import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as soon as the request's head
/// arrives (RFC 9110, section 10.1.1). libcurl — `URLSession` on Linux — asks for it
/// before sending a body over 1 MiB (a push of 10,000 rows) and, without it, waits up to a
/// second before sending the body anyway: most of such a push's time. The header is removed
/// from the request passed on.
///
/// ```swift
/// HTTP1Channel.Configuration(additionalChannelHandlers: [ExpectContinueHandler()])
/// ```
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data),
              let expect = head.headerFields[.expect], expect.lowercased() == "100-continue" else {
            context.fireChannelRead(data)
            return
        }
        head.headerFields[.expect] = nil
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
