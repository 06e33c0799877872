import NIOCore
import NIOHTTP1
import NIOPosix

/// One client's own TCP connection to a server, speaking plain HTTP/1.1 with keep-alive:
/// one request at a time, as a device's sync client does. Each poller and pusher of the
/// load has one (a real population of connections, not one multiplexed connection).
///
/// ```swift
/// let connection = try await HTTPConnection.connect(host: "127.0.0.1", port: 8080, group: group)
/// let (status, body) = try await connection.send(method: .GET, uri: "/v1/pull?after=0&wait=25", token: token)
/// ```
final class HTTPConnection: Sendable {
    private let channel: any Channel
    private let collector: NIOLoopBound<ResponseCollector>

    private init(channel: any Channel, collector: NIOLoopBound<ResponseCollector>) {
        self.channel = channel
        self.collector = collector
    }

    /// Opens a connection (the server's HTTP/1.1 port).
    static func connect(host: String, port: Int, group: any EventLoopGroup) async throws -> HTTPConnection {
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector())
                }
            }
        let channel = try await bootstrap.connect(host: host, port: port).get()
        let collector = try await channel.pipeline.handler(type: ResponseCollector.self)
            .map { NIOLoopBound($0, eventLoop: channel.eventLoop) }.get()
        return HTTPConnection(channel: channel, collector: collector)
    }

    /// Sends one request and waits for its whole response: the status and the body.
    /// Throws when the connection fails or closes first.
    func send(method: HTTPMethod, uri: String, token: String, body: ByteBuffer? = nil) async throws -> (status: Int, body: ByteBuffer) {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
        head.headers.add(name: "Host", value: "127.0.0.1")
        head.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
        let promise = channel.eventLoop.makePromise(of: (Int, ByteBuffer).self)
        let (channel, collector, request) = (self.channel, self.collector, head)
        channel.eventLoop.execute {
            collector.value.expect(promise)
            channel.write(HTTPClientRequestPart.head(request), promise: nil)
            if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { promise.fail($0) }
        }
        let (status, bytes) = try await promise.futureResult.get()
        return (status, bytes)
    }

    /// Closes the connection.
    func close() async {
        try? await channel.close()
    }
}

/// Gathers one response's head and body and completes the request's promise at its end;
/// fails it when the connection errs or closes first.
private final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private var promise: EventLoopPromise<(Int, ByteBuffer)>?
    private var status = 0
    private var body = ByteBuffer()

    func expect(_ promise: EventLoopPromise<(Int, ByteBuffer)>) {
        self.promise?.fail(LoadError("a request was sent before the previous one was answered"))
        self.promise = promise
        status = 0
        body.clear()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            let answer = (status, body)
            body = ByteBuffer()
            promise?.succeed(answer)
            promise = nil
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise?.fail(error)
        promise = nil
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(LoadError("the server closed the connection"))
        promise = nil
        context.fireChannelInactive()
    }
}

/// A failure of the load tool (setup, a connection, an answer), with what happened.
struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
