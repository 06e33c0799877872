import Foundation
import Logging
import PostgresTestSupport
import Synchronization
import SwiduxSyncServer
import SwiduxSyncWire
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Log lines, with their metadata, for a check of what a request logs.
final class CapturedLog: @unchecked Sendable {
    struct Line { var level: Logger.Level; var message: String; var metadata: Logger.Metadata }
    private let lines = Mutex<[Line]>([])
    var all: [Line] { lines.withLock { $0 } }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            log.lines.withLock { $0.append(Line(level: event.level, message: event.message.description, metadata: merged)) }
        }
    }
}

@Suite("Request ids in the log")
struct RequestLogTests {
    @Test("a refused request's log line names the request id its answer gave")
    func refusalLogged() async throws {
        let captured = CapturedLog()
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let logger = Logger(label: "test") { _ in CapturedLog.Handler(log: captured) }
        let (port, task) = try await SyncServer(postgres: try PostgresURL(database), port: 0, logger: logger).start()
        defer { task.cancel() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/\(SyncProtocol.pullPath)")!)
        request.setValue("Bearer wrong", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        let id = try #require((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Request-Id"))
        let lines = captured.all.filter { $0.metadata["hb.request.id"]?.description == id }
        #expect(lines.contains { $0.message == "request refused" && $0.metadata["status"]?.description == "401" },
                "\(captured.all.map { "\($0.message) \($0.metadata)" })")
    }
}
