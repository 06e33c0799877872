import Foundation
import Hummingbird
import Logging
import PostgresTestSupport
import ServiceLifecycle
import SwiduxSyncServer
import SwiduxSyncWire
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sync server as a library in an operator's own Hummingbird application: its routes on
/// the operator's router (with the operator's request context), its service in the
/// operator's service group, next to the operator's own routes.
@Suite("Embedding")
struct EmbeddingTests {
    @Test("an operator's application serves its own route and the sync routes, with the rules; graceful shutdown ends it")
    func embedded() async throws {
        let postgres = try await PostgresCluster.shared().createDatabase()
        var logger = Logger(label: "embedding-test")
        logger.logLevel = .critical
        var server = SyncServer(postgres: try PostgresURL(postgres), port: 0, logger: logger)
        server.rules = RuleTests.titles
        let sync = try await server.service()
        let router = Router()
        router.get("health") { _, _ in "ok" }
        sync.addRoutes(to: router)
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { listening.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [sync, app, sync.longPollCloser], logger: logger))
        let running = Task { try await group.run() }
        var next = ports.makeAsyncIterator()
        let port = try #require(await next.next())
        let base = try #require(URL(string: "http://127.0.0.1:\(port)"))

        let (health, _) = try await URLSession.shared.data(from: base.appendingPathComponent("health"))
        #expect(String(decoding: health, as: UTF8.self) == "ok")
        let device = SyncHTTP(base: base, token: try await ServerProcess.createToken(postgres: postgres, space: "home"))
        try await device.declare(["todo"])
        let answer = try await device.push([todo("a", title: "fine"), todo("b", title: "")])
        #expect(answer.results.map(\.applied) == [true, false])
        #expect(answer.results[1].reason == "a title has 1 to 500 characters")
        #expect(try await device.pullAll().map(\.id) == [.text("a")])

        // A long poll open at shutdown is answered, and the group ends.
        let cursor = try await device.pull().cursor
        let poll = Task { try await device.pullAnswer(after: cursor, wait: 30) }
        try await Task.sleep(for: .milliseconds(300))
        await group.triggerGracefulShutdown()
        #expect(try await poll.value.status == 200)
        try await running.value
    }
}
