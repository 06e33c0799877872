import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresTestSupport
import Synchronization
import SwiduxSyncServer
import SwiduxSyncWire

/// One run of the load against `servers` server processes on the database `postgres`.
struct LoadRun {
    let configuration: LoadConfiguration
    let servers: Int
    let postgres: String
    let group: any EventLoopGroup
    let logger: Logger

    /// Runs the load and prints its figures; true when a target was missed or anything failed.
    func run() async throws -> Bool {
        let clients = configuration.pollers + configuration.pushers
        var started: [ServerProcess] = []
        var endpoints: [(host: String, port: Int)] = configuration.serverURLs.map { ($0.host!, $0.port!) }
        var pids = configuration.serverPIDs
        if endpoints.isEmpty {
            for _ in 0..<servers {
                let server = try await ServerProcess.start(postgres: postgres, arguments: [
                    "--max-connections-per-address", String(clients + 64),
                    // Few tokens stand for many clients here: no token or space may be refused for its number of polls.
                    "--max-requests-per-user", String(clients + 64), "--max-requests-per-space", String(clients + 64),
                ])
                started.append(server)
                endpoints.append(("127.0.0.1", server.port))
                pids.append(server.child.processIdentifier)
            }
        }
        defer { for server in started { server.child.send(SIGKILL) } }
        let tokens = try await createTokens()
        print("\n== \(endpoints.count) server process(es) × \(configuration.pollers / endpoints.count) long polls, "
              + "\(configuration.pushers) pushers, \(configuration.seconds) s (pids \(pids.map(String.init).joined(separator: ",")))")

        // Tables, once per space.
        let setup = try await HTTPConnection.connect(host: endpoints[0].host, port: endpoints[0].port, group: group)
        for token in tokens {
            let body = ByteBuffer(bytes: try JSONEncoder().encode(TablesRequest(tables: ["todo"])))
            let (status, answer) = try await setup.send(method: .PUT, uri: "/\(SyncProtocol.tablesPath)", token: token, body: body)
            guard status == 204 else { throw LoadError("PUT tables: HTTP \(status) \(String(buffer: answer))") }
        }
        await setup.close()

        // Connections: pollers, then pushers, round-robin over the servers, 50 at a time.
        let recorder = LoadRecorder()
        let spaces = configuration.spaceCount
        let connectStart = LoadRecorder.now()
        let pollerConnections = try await connect(count: configuration.pollers, endpoints: endpoints)
        let pusherConnections = try await connect(count: configuration.pushers, endpoints: endpoints)
        let connectedRSS = pids.map { ProcessUsage.read(pid: $0).map { String(format: "%.1f MiB", $0.residentMiB) } ?? "?" }
        print("connected \(clients) clients in \(milliseconds(LoadRecorder.now() - connectStart)) ms; "
              + "server RSS now \(connectedRSS.joined(separator: ", ")); load average \(loadAverage())")

        let stopFlag = StopFlag()
        var pollersPerSpace = [Int](repeating: 0, count: spaces)
        // Time for every poller's first request to reach its wait before the first push.
        let settle = Duration.seconds(3 + configuration.pollers / 1000)
        let pushTasks = (0..<configuration.pushers).map { index in
            let pusher = Pusher(connection: pusherConnections[index], token: tokens[index % spaces], space: index % spaces,
                                name: "pusher-\(index)", recorder: recorder)
            // Spread the pushers over the second, so that the pushes arrive evenly.
            let offset = settle + .milliseconds(1000 * index / configuration.pushers)
            let seconds = configuration.seconds
            return Task { await pusher.run(count: seconds, interval: .seconds(1), startDelay: offset) }
        }
        let pollTasks = (0..<configuration.pollers).map { index in
            pollersPerSpace[index % spaces] += 1
            let poller = Poller(connection: pollerConnections[index], token: tokens[index % spaces], wait: configuration.wait, recorder: recorder)
            return Task { await poller.run(until: { stopFlag.isSet }) }
        }
        let sampler = Task { () -> [Double] in
            var peaks = [Double](repeating: 0, count: pids.count)
            while !Task.isCancelled {
                for (index, pid) in pids.enumerated() { peaks[index] = max(peaks[index], ProcessUsage.read(pid: pid)?.residentMiB ?? 0) }
                try? await Task.sleep(for: .milliseconds(500))
            }
            return peaks
        }
        let cpuBefore = pids.map { ProcessUsage.read(pid: $0)?.cpuSeconds ?? 0 }
        let ownCPUBefore = ProcessUsage.read(pid: getpid())?.cpuSeconds ?? 0
        for task in pushTasks { await task.value }
        // The last rows: until every poller has them, at most 10 s.
        let expectedBySpace = pollersPerSpace
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let snapshot = recorder.snapshot()
            let expected = snapshot.pushes.values.reduce(0) { $0 + expectedBySpace[$1.space] }
            if snapshot.deliveries.count >= expected { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let cpuAfter = pids.map { ProcessUsage.read(pid: $0)?.cpuSeconds ?? 0 }
        print(String(format: "load tool CPU during the pushes: %.1f s; load average %@",
                     (ProcessUsage.read(pid: getpid())?.cpuSeconds ?? 0) - ownCPUBefore, loadAverage()))
        stopFlag.set()
        for connection in pollerConnections + pusherConnections { await connection.close() }
        for task in pollTasks { await task.value }
        sampler.cancel()
        let sampledPeaks = await sampler.value
        let usages = pids.map { ProcessUsage.read(pid: $0) }
        return report(recorder: recorder, expectedBySpace: expectedBySpace, usages: usages, sampledPeaks: sampledPeaks,
                      cpu: zip(cpuBefore, cpuAfter).map { $1 - $0 })
    }

    private func createTokens() async throws -> [String] {
        let url = try PostgresURL(postgres)
        let client = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask { await client.run(); return nil }
            defer { group.cancelAll() }
            var tokens: [String] = []
            for space in 0..<configuration.spaceCount {
                tokens.append(try await Tokens.create(space: "load-\(space)", client: client, logger: logger))
            }
            return tokens
        }
    }

    private func connect(count: Int, endpoints: [(host: String, port: Int)]) async throws -> [HTTPConnection] {
        var connections: [HTTPConnection] = []
        var index = 0
        while index < count {
            let batch = index..<min(count, index + 50)
            let loops = group
            let opened = try await withThrowingTaskGroup(of: (Int, HTTPConnection).self) { tasks in
                for position in batch {
                    let endpoint = endpoints[position % endpoints.count]
                    tasks.addTask { (position, try await HTTPConnection.connect(host: endpoint.host, port: endpoint.port, group: loops)) }
                }
                var result: [(Int, HTTPConnection)] = []
                for try await pair in tasks { result.append(pair) }
                return result.sorted { $0.0 < $1.0 }.map(\.1)
            }
            connections += opened
            index = batch.upperBound
        }
        return connections
    }
}

/// Set once, when the pollers should stop.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

func milliseconds(_ nanoseconds: UInt64) -> String { String(format: "%.0f", Double(nanoseconds) / 1e6) }

/// The machine's load averages (`/proc/loadavg`: 1, 5 and 15 minutes).
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}
