import Foundation
import GRDB
import Logging
import PostgresNIO
import PostgresTestSupport
import Swidux
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncServer
import SwiduxTestSupport

/// A first sync at scale (first push, first pull, memory), against a throwaway cluster and an
/// in-process server started here, on files shaped like `todos`' (lists; items with a
/// foreign key to their list). Each measured step runs in a child process of this
/// executable, like a `todos` command, timed from its start to its exit, with its peak RSS:
///
/// 1. `SWIDUX_BENCH_ROWS` items (default 100,000) and one list are written straight into
///    a never-synced file with SQL; the local read opens the file and hydrates both tables
///    (what `todos list --json` reads, without printing; the median of 3 processes);
/// 2. the first push: `SyncClient.sync()` on that file (queue every row, push, pull);
/// 3. the first pull: `SyncClient.sync()` on an empty file.
///
/// Prints both times ÷ the local read (targets: ≤ 5 each), the rows the push
/// pulled back (its own rows: 0 expected) and each process's peak RSS.
///
/// Then the merge by column: two synced files (each the first push of its own space)
/// change one column of every item (`isDone`); one pushes only that column, the other whole
/// rows (its outbox entries without their columns, as an older outbox's). Prints each push's
/// request bytes and time (targets: ≤ 0.5× the bytes, ≤ 0.7× the time) and the rows merged
/// per second of the column push (≥ 100,000). `SWIDUX_BENCH_MERGE=0` leaves it out.
///
///     swift run -c release --package-path Server swidux-sync-first-sync-bench
@main
struct FirstSyncBench {
    struct List: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "todoList"
        var id: UUID
        var name: String
    }

    struct Item: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "todoItem"
        var id: UUID
        var listID: UUID
        var title: String
        var isDone: Bool
        var createdAt: Date
    }

    static let lists = EntityTable(recordsOf: List.self)
    static let items = EntityTable(recordsOf: Item.self)
    static let tables: [SyncTable] = [.table(lists), .table(items)]
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.create(table: List.databaseTableName) { t in
                t.primaryKey("id", .blob)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
            }
            try db.create(table: Item.databaseTableName) { t in
                t.primaryKey("id", .blob)
                t.entityPositionColumn()
                t.column("listID", .blob).notNull().indexed().references(List.databaseTableName, onDelete: .cascade)
                t.column("title", .text).notNull()
                t.column("isDone", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .datetime).notNull()
            }
        }
    }

    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count >= 3 {
            // A child: `read <file>` or `sync <file> <url> <token>`.
            try await child(arguments[1], path: arguments[2], rest: Array(arguments.dropFirst(3)))
            return
        }
        let rows = Int(ProcessInfo.processInfo.environment["SWIDUX_BENCH_ROWS"] ?? "") ?? 100_000
        var logger = Logger(label: "swidux-sync-first-sync-bench")
        logger.logLevel = .critical   // stopping the in-process server at the end logs harmless errors
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-first-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cluster = try await PostgresCluster.start()
        do {
            try await run(cluster: cluster, directory: directory, rows: rows, logger: logger)
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }

    static func run(cluster: PostgresCluster, directory: URL, rows: Int, logger: Logger) async throws {
        let url = try PostgresURL(try await cluster.createDatabase())
        let postgres = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: logger)
        let (port, serverTask) = try await SyncServer(postgres: url, port: 0, logger: logger).start()
        defer { serverTask.cancel() }
        let base = URL(string: "http://127.0.0.1:\(port)")!

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await postgres.run() }
            defer { group.cancelAll() }
            let token = try await Tokens.create(space: "first-sync", client: postgres, logger: logger)
            let sourcePath = directory.appendingPathComponent("source.sqlite").path
            try write(rows: rows, to: sourcePath)
            var reads: [Measured] = []
            for _ in 0..<3 { reads.append(try await measure(["read", sourcePath])) }
            reads.sort { $0.seconds < $1.seconds }
            let read = reads[1]
            guard read.values["rows"] == rows + 1 else { throw ProcessFailure("read \(read.values["rows"] ?? -1) rows, expected \(rows + 1)") }

            let push = try await measure(["sync", sourcePath, base.absoluteString, token])
            guard push.values["pushed"] == rows + 1, push.values["pending"] == 0 else {
                throw ProcessFailure("the first push acknowledged \(push.values["pushed"] ?? -1) rows, expected \(rows + 1): \(push.output)")
            }
            // A second never-synced file for the merge step (its own space, below).
            let wholePath = directory.appendingPathComponent("whole.sqlite").path
            let merge = ProcessInfo.processInfo.environment["SWIDUX_BENCH_MERGE"] != "0"
            if merge { try FileManager.default.copyItem(atPath: sourcePath, toPath: wholePath) }
            let targetPath = directory.appendingPathComponent("target.sqlite").path
            let pull = try await measure(["sync", targetPath, base.absoluteString, token])
            guard pull.values["pulled"] == rows + 1, pull.values["rows"] == rows + 1 else {
                throw ProcessFailure("the first pull applied \(pull.values["pulled"] ?? -1) rows, expected \(rows + 1): \(pull.output)")
            }
            print("rows: \(rows + 1) (\(rows) items and 1 list)")
            print(String(format: "local read (open + hydrate both tables, median of 3 processes): %.3f s, peak RSS %d MiB",
                         read.seconds, read.peakKiB / 1024))
            print(String(format: "first push: %.2f s, %.0f rows/s, pulled back %d rows (target 0), peak RSS %d MiB; push ÷ local read %.1f× (target ≤ 5)",
                         push.seconds, Double(rows + 1) / push.seconds, push.values["pulled"] ?? -1, push.peakKiB / 1024, push.seconds / read.seconds))
            print(String(format: "first pull into an empty file: %.2f s, %.0f rows/s, peak RSS %d MiB; pull ÷ local read %.1f× (target ≤ 5)",
                         pull.seconds, Double(rows + 1) / pull.seconds, pull.peakKiB / 1024, pull.seconds / read.seconds))
            for (name, step) in [("first push", push), ("first pull", pull)] {
                print("\(name): open \(step.values["openMs"] ?? -1) ms, SyncClient made (its first sync queues every row) \(step.values["clientMs"] ?? -1) ms, sync() \(step.values["syncMs"] ?? -1) ms; the rest is the process's start and exit")
            }
            for (name, step) in [("local read", read), ("first push", push), ("first pull", pull)] {
                print("\(name): CPU \(step.values["cpuMs"] ?? -1) ms, wrote \(step.values["wcharMiB"] ?? -1) MiB, read \(step.values["rcharMiB"] ?? -1) MiB (the process's CPU time, write and read calls)")
            }
            guard merge else { return }
            // One column of every item changed, pushed by column and whole.
            let wholeToken = try await Tokens.create(space: "first-sync-whole", client: postgres, logger: logger)
            let wholeFirst = try await measure(["sync", wholePath, base.absoluteString, wholeToken])
            guard wholeFirst.values["pending"] == 0 else { throw ProcessFailure("the second first push failed: \(wholeFirst.output)") }
            for (path, whole) in [(sourcePath, false), (wholePath, true)] {
                try edit(path: path, whole: whole)
            }
            // The server runs in this process: its CPU time during each push.
            let serverBefore = cpuMilliseconds()
            let columns = try await measure(["sync", sourcePath, base.absoluteString, token])
            let serverColumns = cpuMilliseconds() - serverBefore
            let wholeRows = try await measure(["sync", wholePath, base.absoluteString, wholeToken])
            let serverWhole = cpuMilliseconds() - serverBefore - serverColumns
            for (name, step) in [("by column", columns), ("whole rows", wholeRows)] {
                guard step.values["pushed"] == rows, step.values["pending"] == 0 else {
                    throw ProcessFailure("the push \(name) acknowledged \(step.values["pushed"] ?? -1) rows, expected \(rows): \(step.output)")
                }
            }
            let bytes = (Double(columns.values["pushedBytes"] ?? 0), Double(wholeRows.values["pushedBytes"] ?? 1))
            let times = (Double(columns.values["syncMs"] ?? 0) / 1000, Double(wholeRows.values["syncMs"] ?? 1) / 1000)
            print(String(format: "one column of %d items changed, pushed by column: %.1f MiB in %.2f s (sync()), %.0f rows/s end to end (client, wire and server; the merge-rate target is the server's, below); process %.2f s, peak RSS %d MiB",
                         rows, bytes.0 / 1_048_576, times.0, Double(rows) / times.0, columns.seconds, columns.peakKiB / 1024))
            print(String(format: "the same rows pushed whole: %.1f MiB in %.2f s (sync()); process %.2f s, peak RSS %d MiB",
                         bytes.1 / 1_048_576, times.1, wholeRows.seconds, wholeRows.peakKiB / 1024))
            print(String(format: "by column ÷ whole: bytes %.2f× (target ≤ 0.5), time %.2f× (target ≤ 0.7)", bytes.0 / bytes.1, times.0 / times.1))
            print("CPU: by column: client \(columns.values["cpuMs"] ?? -1) ms, server \(serverColumns) ms; whole rows: client \(wholeRows.values["cpuMs"] ?? -1) ms, server \(serverWhole) ms")
            print(String(format: "server merge rate (rows ÷ the server's CPU time during the push): by column %.0f rows/s, whole rows %.0f rows/s (target ≥ 100,000)",
                         Double(rows) / (Double(serverColumns) / 1000), Double(rows) / (Double(serverWhole) / 1000)))
        }
    }

    /// What a child printed (`key=value` integers), its time from spawn to exit, its peak RSS.
    struct Measured {
        var seconds: Double
        var values: [String: Int]
        var peakKiB: Int { values["peakKiB"] ?? -1 }
        var output: String
    }

    static func measure(_ arguments: [String]) async throws -> Measured {
        let clock = ContinuousClock()
        let start = clock.now
        let process = try await ChildProcess.start([CommandLine.arguments[0]] + arguments)
        let status = try await process.wait()
        let elapsed = clock.now - start
        guard status == 0 else { throw ProcessFailure("\(arguments[0]) failed (\(status)): \(process.standardError)") }
        var values: [String: Int] = [:]
        for field in process.standardOutput.split(whereSeparator: \.isWhitespace) {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        return Measured(seconds: Double(elapsed / .microseconds(1)) / 1_000_000, values: values, output: process.standardOutput)
    }

    /// The child's side: one step, then `key=value` figures on standard output.
    static func child(_ step: String, path: String, rest: [String]) async throws {
        let clock = ContinuousClock()
        func milliseconds(since start: ContinuousClock.Instant) -> Int { Int((clock.now - start) / .milliseconds(1)) }
        var start = clock.now
        let database = try SwiduxDatabase(path: path, migrations: migrations)
        var figures: [String: Int] = ["openMs": milliseconds(since: start)]
        switch step {
        case "read":
            let (listStore, itemStore) = try await database.hydrateAll(lists, items)
            figures["rows"] = listStore.count + itemStore.count
        case "sync":
            guard rest.count == 2, let url = URL(string: rest[0]) else { throw ProcessFailure("sync <file> <url> <token>") }
            start = clock.now
            let client = try SyncClient(database: database, server: url, token: rest[1], tables: tables)
            figures["clientMs"] = milliseconds(since: start)
            start = clock.now
            let report = try await client.sync()
            figures["syncMs"] = milliseconds(since: start)
            figures["pushed"] = report.pushed
            figures["pushedBytes"] = report.pushedBytes
            figures["pulled"] = report.pulled
            figures["pending"] = report.pending
            figures["rows"] = try await database.writer.read { db in
                (try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM todoList) + (SELECT count(*) FROM todoItem)")) ?? 0
            }
        default:
            throw ProcessFailure("unknown step \(step)")
        }
        if let usage = ProcessUsage.read(pid: getpid()) { figures["peakKiB"] = Int(usage.peakMiB * 1024) }
        var usage = rusage()
        #if os(Linux)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        if getrusage(who, &usage) == 0 {
            let micros = (Int(usage.ru_utime.tv_sec) + Int(usage.ru_stime.tv_sec)) * 1_000_000
                + Int(usage.ru_utime.tv_usec) + Int(usage.ru_stime.tv_usec)
            figures["cpuMs"] = micros / 1000
        }
        let io = (try? String(contentsOfFile: "/proc/self/io", encoding: .utf8)) ?? ""
        for line in io.split(separator: "\n") where line.hasPrefix("wchar:") || line.hasPrefix("rchar:") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let bytes = Int(parts[1]) { figures[String(parts[0].dropLast()) + "MiB"] = bytes >> 20 }
        }
        print(figures.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))
    }

    /// This process's CPU time (user and system), in milliseconds.
    static func cpuMilliseconds() -> Int {
        var usage = rusage()
        #if os(Linux)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        return ((Int(usage.ru_utime.tv_sec) + Int(usage.ru_stime.tv_sec)) * 1_000_000
            + Int(usage.ru_utime.tv_usec) + Int(usage.ru_stime.tv_usec)) / 1000
    }

    /// Flips `isDone` of every item (one column each), in one transaction, as an app would; with
    /// `whole`, its outbox entries lose their columns (an older outbox's: pushed whole).
    static func edit(path: String, whole: Bool) throws {
        let database = try SwiduxDatabase(path: path, migrations: migrations)
        try database.writer.write { db in
            try db.execute(sql: "UPDATE todoItem SET isDone = NOT isDone")
            if whole { try db.execute(sql: "UPDATE swidux_sync_outbox SET cols = NULL") }
        }
    }

    /// One list and `rows` items written with plain SQL into a new file (never synced).
    static func write(rows: Int, to path: String) throws {
        let database = try SwiduxDatabase(path: path, migrations: migrations)
        try database.writer.write { db in
            let list = UUID()
            try db.execute(sql: "INSERT INTO todoList (id, position, name) VALUES (?, 0, 'Inbox')", arguments: [list])
            let insert = try db.makeStatement(sql: "INSERT INTO todoItem (id, position, listID, title, isDone, createdAt) VALUES (?, ?, ?, ?, ?, ?)")
            let created = Date(timeIntervalSince1970: 1_790_000_000)
            for index in 0..<rows {
                try insert.execute(arguments: [UUID(), index, list, "Todo number \(index): buy milk and bread", index % 3 == 0,
                                               created.addingTimeInterval(Double(index))])
            }
        }
    }
}
