import Clocks
import Foundation
import SwiduxTestSupport
@testable import SwiduxSQLite
import SwiduxTesting
import Testing

/// Issue 30 item 9: a following store does not poll the file 20 times a second. Commits of
/// this process wake its feed in process, other processes' commits are noticed by a file
/// notification (Linux) or a slow poll, and idle it wakes at most once a second.
@MainActor
@Suite(.serialized)
struct IdleWakeUpTests {
    @Test("An idle following store wakes at most once a second (counted over 10 s)")
    func idleFollowerWakesAtMostOnceASecond() async throws {
        let directory = try TemporaryDirectory()
        let follower = try await Follower(path: directory.path("app.sqlite"), every: ChangeFeed.defaultInterval)
        let feed = try #require(follower.feed)
        try await Task.sleep(for: .milliseconds(300))   // the first check and its batch
        let before = feed.wakeUps
        try await Task.sleep(for: .seconds(10))
        let wakeUps = feed.wakeUps - before
        #expect(wakeUps <= 10, "\(wakeUps) wake-ups in 10 s")
    }

    @Test("This process's commits through another database on the file wake a slow-polling follower at once")
    func ownProcessCommitsWakeTheFeed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let a = try await Follower(path: path, every: .seconds(60))
        let b = try await Follower(path: path, follow: false)
        try await Task.sleep(for: .milliseconds(300))
        b.store.send(.put(todo(1, "from b")))
        try await b.persistence.flush()
        #expect(await eventually(seconds: 5) { a.store.state.todos[1]?.title == "from b" })
    }

    #if canImport(Glibc)
    @Test("Another process's commit wakes a slow-polling follower (inotify), well before its poll")
    func otherProcessCommitsWakeTheFeed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let database = try SwiduxDatabase(path: path, migrations: CrashAtomicityTests.migrations)
        let persistence = PersistenceMiddleware<ChildState>(
            writers: [database.stateWriter(for: \.a, table: CrashAtomicityTests.tableA)], clock: TestClock())
        var state = ChildState()
        state.a = try await database.hydrate(CrashAtomicityTests.tableA)
        let store = Store(initialState: state, reducer: ChildReducer(), environment: (), persistence: persistence)
        try store.follow(database, every: .seconds(60))
        try await Task.sleep(for: .milliseconds(300))
        let writer = try CrashAtomicityTests.crashWriterPath()
        let insert = #"INSERT INTO a (id, position, data) VALUES (1, 0, '{"id":1,"flush":7,"payload":"child"}')"#
        #expect(try await ChildProcess.run([writer, "sql", path, insert], output: directory.path("child.log")) == 0)
        #expect(await eventually(seconds: 10) { store.state.a.ids == [1] })
    }
    #endif
}

#if canImport(Glibc)
/// A running app keeps its database open: its commits only append to the `-wal`, and the
/// write is reported before the commit is visible to readers. Every such commit must wake a
/// follower — not only the first ones — well before its slow poll.
@MainActor
@Suite(.serialized, .timeLimit(.minutes(3)))
struct LongRunningWriterWakeUpTests {
    @Test("Ten commits in a row of a long-running writer each wake a follower that never polls")
    func everyCommitOfALongRunningWriterWakesTheFollower() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let database = try SwiduxDatabase(path: path, migrations: CrashAtomicityTests.migrations)
        let persistence = PersistenceMiddleware<ChildState>(
            writers: [database.stateWriter(for: \.a, table: CrashAtomicityTests.tableA)], clock: TestClock())
        var state = ChildState()
        state.a = try await database.hydrate(CrashAtomicityTests.tableA)
        let store = Store(initialState: state, reducer: ChildReducer(), environment: (), persistence: persistence)
        // A poll an hour apart: whatever reaches the store was woken by a notification.
        let feed = try store.follow(database, every: .seconds(3600))
        try await Task.sleep(for: .milliseconds(300))   // the first check and its batch

        let writer = try CrashAtomicityTests.crashWriterPath()
        let go = directory.path("go-")
        let log = directory.path("child.log")
        let child = Task.detached { try await ChildProcess.run([writer, "commits", path, "10", go], output: log) }
        var reachedAll = true
        for n in 1...10 {
            // The writer commits row n once told to, the previous one having reached the store.
            _ = FileManager.default.createFile(atPath: go + "\(n)", contents: nil)
            guard reachedAll else { continue }
            reachedAll = await eventually(seconds: 20) { store.state.a.ids.contains(n) }
            #expect(reachedAll, "commit \(n) of the writer did not wake the follower (\(feed.wakeUps) wake-ups)")
        }
        #expect(try await child.value == 0)
    }
}
#endif
