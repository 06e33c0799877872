// swidux-crash-writer: the child process of SwiduxSQLiteTests' process-level tests.
//
// Usage: swidux-crash-writer <database path> <progress file>
//        swidux-crash-writer migrate <database path> <go file>
//        swidux-crash-writer read <database path>
//        swidux-crash-writer read-then-write <database path>
//        swidux-crash-writer sql <database path> <sql>
//        swidux-crash-writer raw-sql <database path> <sql>
//        swidux-crash-writer follow-writer <database path> <seed> <steps> <done file> <other done file> <dump file>
//        swidux-crash-writer commits <database path> <count> <go file prefix>
//
// `sql` runs the statements in one transaction (a plain SQL writer) and exits 0.
// `raw-sql` runs the statements through a plain GRDB connection to any database (foreign
// keys on, no migrations, no transaction of its own: the SQL may `BEGIN … COMMIT` and
// switch pragmas), as another app or a newer version of the app would; exits 0.
// `follow-writer` runs a store on table "a" that follows the database (ExternalChangesTests'
// randomized test): `steps` random puts and deletes of ids 0..<20 with random flush timing,
// a final flush, then it creates the done file, waits for the other writer's, waits until
// its store equals the file (at most 20 s) and writes its store's rows as JSON to the dump file.
// `commits` is a long-running writer (an app that keeps its database open): for n in
// 1...count it waits until the file "<go file prefix>n" exists, then commits one row
// (id n) to table "a" — appended to the `-wal`, as a running app's flush is — and closes
// the database at the end.
//
// `migrate` waits until the go file exists (so that many children start at once), opens
// (creating) the database with `concurrentMigrations`, appends one row to table "log"
// and exits 0; on an error it prints it and exits 1.
// `read` opens the database `.readOnly` and prints the ids of table "a" (`a: 1 2`).
// `read-then-write` does the same, then tries a flush, which must fail: it prints the
// error and exits 3 (0 would mean the write succeeded).
//
// Without a mode:
// Opens the database (recovering it if a previous run was killed), hydrates tables
// "a" and "b", and then writes flushes forever, each one a single
// `performAtomically` transaction over both tables. Flush n makes table "a" hold the
// rows 0..<countA(n) and table "b" the rows 0..<countB(n), every row carrying
// `flush == n`, ascending by id for even n and descending for odd n. Rows are
// updated, inserted, deleted and reordered from flush n-1's state, so each flush is
// many statements. After a flush commits, "n\n" is appended to the progress file.
// The test kills this process with SIGKILL at random moments and checks that the
// database holds exactly the state of one completed flush.
//
// If the test process dies first (an interrupted `swift test`), the writer would loop
// forever as an orphan: it checks after every flush that its parent is still the
// process that started it, and exits otherwise. (Not `PR_SET_PDEATHSIG`: on Linux that
// fires when the parent *thread* that spawned the child exits, and the test spawns from
// a concurrency pool thread that may retire while the test still runs.)
import Foundation
import GRDB
import SwiduxSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct CrashRow: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var flush: Int
    var payload: String
}

func countA(_ n: Int) -> Int { n == 0 ? 0 : 200 + (n &* 7919) % 300 }
func countB(_ n: Int) -> Int { n == 0 ? 0 : 50 + (n &* 104_729) % 100 }

/// Brings `store` to flush `n`'s state and returns the batch that persists the change.
func advance(_ store: inout EntityStore<CrashRow>, to n: Int, count: Int) -> WriteBatch<CrashRow> {
    store.removeAll { $0.id >= count }
    for id in 0..<count {
        store[id] = CrashRow(id: id, flush: n, payload: "flush \(n) row \(id) " + String(repeating: "x", count: id % 40))
    }
    if n % 2 == 0 { store.sort { $0.id < $1.id } } else { store.sort { $0.id > $1.id } }
    let changes = store.drainChanges()
    return WriteBatch(
        writes: changes.upserted.compactMap { store[$0] },
        deletions: changes.deleted,
        order: changes.orderChanged ? store.ids : nil
    )
}

let parent = getppid()
let arguments = CommandLine.arguments
let tableA = EntityTable<CrashRow>(named: "a")
let tableB = EntityTable<CrashRow>(named: "b")
let migrations = SwiduxMigrations { m in
    m.register("v1") { db in
        try db.createEntityTable(tableA)
        try db.createEntityTable(tableB)
    }
}
/// `migrations` plus two steps that would fail or duplicate data if run twice.
let concurrentMigrations = SwiduxMigrations { m in
    m.register("v1") { db in
        try db.createEntityTable(tableA)
        try db.createEntityTable(tableB)
    }
    m.register("v2-seed") { db in
        try db.execute(sql: "CREATE TABLE seed (note TEXT NOT NULL)")
        try db.execute(sql: "INSERT INTO seed (note) VALUES ('once')")
    }
    m.register("v3-log") { db in
        try db.execute(sql: "CREATE TABLE log (pid INTEGER NOT NULL)")
    }
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("swidux-crash-writer: \(message)\n".utf8))
    exit(status)
}

if arguments.count == 4, arguments[1] == "migrate" {
    while !FileManager.default.fileExists(atPath: arguments[3]) { usleep(500) }
    do {
        let database = try SwiduxDatabase(path: arguments[2], migrations: concurrentMigrations)
        try await database.performAtomically([{ db in
            try db.execute(sql: "INSERT INTO log (pid) VALUES (?)", arguments: [Int(getpid())])
        }])
        try database.close()
        exit(0)
    } catch {
        fail("\(error)", status: 1)
    }
}

if arguments.count == 3, arguments[1] == "read" || arguments[1] == "read-then-write" {
    do {
        let database = try SwiduxDatabase(path: arguments[2], migrations: migrations, access: .readOnly)
        let a: EntityStore<CrashRow> = try database.hydrate(tableA)
        print("a: " + a.ids.map(String.init).joined(separator: " "))
        if arguments[1] == "read-then-write" {
            let batch = WriteBatch<CrashRow>(deletions: a.ids)
            do {
                try await database.performAtomically([{ db in try tableA.write(batch, in: db) }])
            } catch {
                print("\(error)")
                exit(3)
            }
        }
        try database.close()
        exit(0)
    } catch {
        fail("\(error)", status: 1)
    }
}

if arguments.count == 5, arguments[1] == "commits", let count = Int(arguments[3]) {
    do {
        let database = try SwiduxDatabase(path: arguments[2], migrations: migrations)
        for n in 1...max(count, 1) {
            while !FileManager.default.fileExists(atPath: arguments[4] + "\(n)") {
                if getppid() != parent { exit(2) }
                usleep(500)
            }
            let row = CrashRow(id: n, flush: n, payload: "commit \(n)")
            try await database.performAtomically([{ db in _ = try tableA.write(WriteBatch(writes: [row]), in: db) }])
        }
        try database.close()
        exit(0)
    } catch {
        fail("\(error)", status: 1)
    }
}

if arguments.count == 4, arguments[1] == "sql" {
    do {
        let database = try SwiduxDatabase(path: arguments[2], migrations: migrations, access: .existing)
        try database.writer.write { db in try db.execute(sql: arguments[3]) }
        try database.close()
        exit(0)
    } catch {
        fail("\(error)", status: 1)
    }
}

if arguments.count == 4, arguments[1] == "raw-sql" {
    do {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: arguments[2], configuration: configuration)
        try pool.writeWithoutTransaction { db in try db.execute(sql: arguments[3]) }
        try pool.close()
        exit(0)
    } catch {
        fail("\(error)", status: 1)
    }
}

if arguments.count == 8, arguments[1] == "follow-writer" {
    do {
        try await FollowWriter.run(
            path: arguments[2], seed: UInt64(arguments[3]) ?? 1, steps: Int(arguments[4]) ?? 100,
            done: arguments[5], otherDone: arguments[6], dump: arguments[7])
        exit(0)
    } catch {
        fail("\(error)", status: 1)
    }
}

guard arguments.count == 3 else {
    fail("usage: swidux-crash-writer <database> <progress file> | migrate <database> <go file> | read <database> | read-then-write <database> | sql <database> <sql> | follow-writer <database> <seed> <steps> <done> <other done> <dump>", status: 2)
}

do {
    let database = try SwiduxDatabase(path: arguments[1], migrations: migrations)
    var (a, b) = try await database.hydrateAll(tableA, tableB)
    var n = a.first?.flush ?? 0
    _ = FileManager.default.createFile(atPath: arguments[2], contents: nil)
    let progress = try FileHandle(forWritingTo: URL(fileURLWithPath: arguments[2]))
    try progress.seekToEnd()
    while true {
        n += 1
        let batchA = advance(&a, to: n, count: countA(n))
        let batchB = advance(&b, to: n, count: countB(n))
        try await database.performAtomically([
            { db in try tableA.write(batchA, in: db) },
            { db in try tableB.write(batchB, in: db) },
        ])
        try progress.write(contentsOf: Data("\(n)\n".utf8))
        // Orphaned (the test runner died): stop instead of writing forever.
        if getppid() != parent { exit(0) }
    }
} catch {
    FileHandle.standardError.write(Data("swidux-crash-writer: \(error)\n".utf8))
    exit(1)
}
