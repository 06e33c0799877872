import Foundation
import Synchronization
import PostgresNIO
import PostgresTestSupport
import SwiduxSyncWire
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Faults")
struct FaultTests {
    /// The real server process is killed with SIGKILL while a client pushes, and restarted,
    /// `SWIDUX_SERVER_KILLS` times (default 20). The client retries each push with the same
    /// bytes until acknowledged. Afterwards every acknowledged change is on the server, and
    /// none was applied twice: a trigger added to the server's `sync_rows` records every
    /// committed write (an aborted transaction's records vanish with it), and each row
    /// must have been written exactly once, the shared `counter` row once per mutation.
    @Test("SIGKILL during pushes: no acknowledged change lost, none applied twice", .timeLimit(.minutes(2)))
    func killDuringPushes() async throws {
        let kills = Int(ProcessInfo.processInfo.environment["SWIDUX_SERVER_KILLS"] ?? "") ?? 20
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let port = try PostgresCluster.freePort()
        var server = try await ServerProcess.start(postgres: database, port: port)
        let token = try await ServerProcess.createToken(postgres: database, space: "home")
        let client = SyncHTTP(base: server.url, token: token)
        try await client.declare(["todo"])
        try await cluster.withConnection(database: database) { connection, logger in
            try await connection.query("CREATE TABLE audit (rid text NOT NULL, version bigint NOT NULL)", logger: logger)
            try await connection.query("""
                CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO audit VALUES (NEW.rid, NEW.version); RETURN NEW; END $$
                """, logger: logger)
            try await connection.query(
                "CREATE TRIGGER audit AFTER INSERT OR UPDATE ON sync_rows FOR EACH ROW EXECUTE FUNCTION audit_row()", logger: logger)
        }

        let acknowledged = Acknowledged()
        // The pusher: mutation n inserts row "n" (several rows per mutation) and updates row
        // "counter" with the mutation id; retried with the same bytes until acknowledged.
        let pusher = Task {
            var mutation: Int64 = 0
            while !Task.isCancelled {
                mutation += 1
                let changes = (0..<5).map { SyncChange(table: "todo", id: .text("m\(mutation)-\($0)"), kind: .insert,
                                                       columns: ["seq": .integer(mutation)]) }
                    + [SyncChange(table: "todo", id: .text("counter"), kind: .update, columns: ["last": .integer(mutation)])]
                let body = try JSONEncoder().encode(PushRequest(clientID: client.clientID, mutations: [SyncMutation(id: mutation, changes: changes)]))
                while !Task.isCancelled {
                    do {
                        let answer = try await client.pushAnswer(body)
                        if answer.status == 200, let response = try? answer.decode(PushResponse.self) {
                            #expect(response.lastMutationID == mutation)
                            acknowledged.set(mutation)
                            break
                        }
                    } catch let error as URLError where error.code != .cannotConnectToHost {
                        acknowledged.interrupted()   // sent, and the server died before answering
                    } catch {}
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
        }
        // Let some pushes through, then kill at a random moment; `kills` times, then more (at
        // most twice as many) until one kill has cut a push in flight: on a loaded machine
        // every kill can land between two pushes.
        var killed = 0
        while killed < kills || (acknowledged.interruptions == 0 && killed < kills * 3) {
            let target = acknowledged.value + 2
            while acknowledged.value < target { try await Task.sleep(for: .milliseconds(2)) }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...20_000)))
            await server.kill()
            server = try await ServerProcess.start(postgres: database, port: port)
            killed += 1
        }
        let final = acknowledged.value + 3
        while acknowledged.value < final { try await Task.sleep(for: .milliseconds(2)) }
        pusher.cancel()
        _ = await pusher.result
        let last = acknowledged.value
        await server.stop()

        // Whatever was applied: rows m1… of mutations up to the client's last_mutation.
        let (rows, lastApplied, counter, writes) = try await cluster.withConnection(database: database) { connection, logger in
            var rows: [(String, Int64, Int64)] = []
            for try await row in try await connection.query(
                "SELECT rid, version, (columns->>'seq')::bigint FROM sync_rows WHERE rid <> 't:counter' ORDER BY version",
                logger: logger
            ).decode((String, Int64, Int64).self) { rows.append(row) }
            var lastApplied: Int64 = 0
            for try await value in try await connection.query("SELECT last_mutation FROM sync_clients", logger: logger)
                .decode(Int64.self) { lastApplied = value }
            var counter: Int64 = 0
            for try await value in try await connection.query(
                "SELECT (columns->>'last')::bigint FROM sync_rows WHERE rid = 't:counter'", logger: logger
            ).decode(Int64.self) { counter = value }
            var writes: [String: Int] = [:]
            for try await (rid, count) in try await connection.query(
                "SELECT rid, count(*)::bigint FROM audit GROUP BY rid", logger: logger
            ).decode((String, Int64).self) { writes[rid] = Int(count) }
            return (rows, lastApplied, counter, writes)
        }
        #expect(last >= Int64(kills) * 2)
        // Some kills cut a push in flight (sent, no answer): those are the retries that matter.
        #expect(acknowledged.interruptions >= 1, "kills hit pushes in flight (\(acknowledged.interruptions) of \(killed))")
        #expect(lastApplied >= last, "every acknowledged mutation is applied")
        #expect(counter == lastApplied)
        // One row per change of every applied mutation: none lost, none applied twice (a
        // second application would have given the row a newer version, out of mutation order).
        let expected = (1...lastApplied).flatMap { m in (0..<5).map { "t:m\(m)-\($0)" } }
        #expect(rows.map(\.0).sorted() == expected.sorted())
        #expect(rows.map(\.2) == rows.map(\.2).sorted(), "versions follow mutation order: no mutation applied again later")
        #expect(Set(rows.map(\.1)).count == rows.count)
        #expect(writes["t:counter"] == Int(lastApplied), "the counter row was written once per mutation")
        let twice = writes.filter { $0.key != "t:counter" && $0.value != 1 }
        #expect(twice.isEmpty, "rows written more than once: \(twice)")
        #expect(writes.count == expected.count + 1)
    }
}

/// The last acknowledged mutation id, and how many pushes the kills cut off in flight.
final class Acknowledged: Sendable {
    private let state = Mutex<(last: Int64, cut: Int)>((0, 0))
    var value: Int64 { state.withLock { $0.last } }
    var interruptions: Int { state.withLock { $0.cut } }
    func set(_ value: Int64) { state.withLock { $0.last = value } }
    func interrupted() { state.withLock { $0.cut += 1 } }
}
