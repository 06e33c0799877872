import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// A row whose decoding notes whether the main actor was free meanwhile.
struct Probe: Identifiable, Equatable, Sendable, Codable {
    var id: Int
    var name: String

    init(id: Int, name: String) { self.id = id; self.name = name }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        LaunchThreads.shared.probeMainActor()
    }
}

/// Whether the main actor could run a job while launch work ran (`true`: it was free).
final class LaunchThreads: @unchecked Sendable {
    static let shared = LaunchThreads()
    private let lock = LockedValue(())
    private var seen: [Bool] = []

    private var wait: Double = 3

    /// How long a probe waits. A blocked main actor never runs the probe's job while the
    /// launch work runs, so any wait tells it; a free one may be busy with other suites'
    /// jobs on two loaded cores for seconds (3 s was once too short): the async path's
    /// probes wait long, the blocking path's short.
    func setWait(_ seconds: Double) { lock.withLock { _ in wait = seconds } }

    /// Asks the main actor to run a job and waits for it: it cannot run while the main
    /// actor waits synchronously for this launch work.
    func probeMainActor() {
        let ran = DispatchSemaphore(value: 0)
        Task { @MainActor in ran.signal() }
        let free = ran.wait(timeout: .now() + lock.withLock { _ in wait }) == .success
        lock.withLock { _ in seen.append(free) }
    }
    func take() -> [Bool] { lock.withLock { _ in defer { seen = [] }; return seen } }
}

struct ProbeState { var probes = EntityStore<Probe>() }

enum ProbeSchema {
    static let probes = EntityTable<Probe>(named: "probe")
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            LaunchThreads.shared.probeMainActor()
            try db.createEntityTable(probes)
        }
    }
}

/// Issue 30 item 4: the launch path opens, checks, migrates and hydrates off the main
/// actor; the integrity check is bounded.
@Suite(.serialized)
@MainActor
struct AsyncLaunchTests {
    @Test("The async launch path leaves the main actor free while it migrates and hydrates; the synchronous one blocks it")
    func asyncLaunchLeavesTheMainActorFree() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        _ = LaunchThreads.shared.take()
        LaunchThreads.shared.setWait(60)
        defer { LaunchThreads.shared.setWait(3) }

        let database = try await SwiduxDatabase.open(path: path, migrations: ProbeSchema.migrations)
        try await database.performAtomically([{ db in
            try ProbeSchema.probes.write(WriteBatch(writes: (1...3).map { Probe(id: $0, name: "p\($0)") }), in: db)
        }])
        var state = ProbeState()
        _ = try await database.persistence(hydratingInBackground: &state, [.entities(\.probes, in: ProbeSchema.probes)])
        #expect(state.probes.ids == [1, 2, 3])
        let free = LaunchThreads.shared.take()
        #expect(free.count == 4)   // the migration and three rows
        #expect(!free.contains(false), "\(free)")
        try database.close()

        // The synchronous path (what the README's App.init did) holds the main actor.
        LaunchThreads.shared.setWait(1)
        let again = try SwiduxDatabase(path: directory.path("sync.sqlite"), migrations: ProbeSchema.migrations)
        try await again.performAtomically([{ db in try ProbeSchema.probes.write(WriteBatch(writes: [Probe(id: 1, name: "p")]), in: db) }])
        var syncState = ProbeState()
        _ = try again.persistence(hydrating: &syncState, [.entities(\.probes, in: ProbeSchema.probes)])
        #expect(LaunchThreads.shared.take() == [false, false])
    }

    @Test("The integrity check runs after an unclean shutdown only, and on demand")
    func integrityCheckIsBounded() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        try await database.performAtomically([{ db in
            try Schema.todos.write(WriteBatch(writes: (1...400).map { Todo(id: $0, title: String(repeating: "x", count: 200), done: false, tags: []) }), in: db)
        }])
        try database.close()   // clean: no -wal left
        var bytes = try #require(fileBytes(path))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        // Damages a page in the middle of the to-do table's data (not the schema).
        let page = bytes.count / pageSize / 2
        for index in (page * pageSize + 8)..<((page + 1) * pageSize) { bytes[index] = 0x5A }
        try bytes.write(to: URL(fileURLWithPath: path))

        // Every open checks by default: refused.
        #expect(throws: SwiduxDatabaseError.self) { try SwiduxDatabase(path: path, migrations: Schema.migrations) }
        // Closed cleanly: the bounded check skips the scan; the check on demand finds it.
        let opened = try await SwiduxDatabase.open(path: path, migrations: Schema.migrations, access: .existing)
        let error = await #expect(throws: SwiduxDatabaseError.self) { try await opened.checkIntegrity() }
        #expect(error?.cause == .corrupt)
        // A -wal left behind (an unclean shutdown): checked at open.
        let walPath = directory.path("unclean.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: walPath)
        #expect(FileManager.default.createFile(atPath: walPath + "-wal", contents: Data()))
        await #expect(throws: SwiduxDatabaseError.self) {
            try await SwiduxDatabase.open(path: walPath, migrations: Schema.migrations, access: .existing)
        }
        try opened.close()
    }
}
