import Clocks
import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// Issue 27 item 6: a database file deleted, moved or replaced while open.
@MainActor
@Suite("A database file deleted or replaced while open", .timeLimit(.minutes(2)))
struct FileReplacedTests {
    private func openStore(_ path: String) throws -> (SwiduxDatabase, PersistenceMiddleware<CState>, Store<CState, CEdit>) {
        let database = try SwiduxDatabase(path: path, migrations: CSchema.migrations)
        var state = CState()
        let persistence = try database.persistence(hydrating: &state, [.entities(\.lists, in: CSchema.lists)], clock: TestClock())
        return (database, persistence, Store(initialState: state, reducer: CReducer(), environment: (), persistence: persistence))
    }

    @Test("A flush to a file moved away fails naming the path and keeps its changes; once the file is back they are saved")
    func movedAwayThenBack() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let (database, persistence, store) = try openStore(path)
        store.send(CEdit { $0.lists["a"] = CList(id: "a", name: "saved") })
        try await store.flush()

        try FileManager.default.moveItem(atPath: path, toPath: path + ".away")
        store.send(CEdit { $0.lists["b"] = CList(id: "b", name: "pending") })
        var failure: (any Error)?
        do { try await store.flush() } catch { failure = error }
        let error = try #require((failure as? PersistenceWriteFailure)?.underlying as? SwiduxDatabaseError ?? failure as? SwiduxDatabaseError)
        #expect(error.cause == .fileReplaced)
        #expect(error.path == path)
        #expect(error.description.contains(path))
        #expect(persistence.hasPendingWrites)

        // The file comes back: the kept change is saved, nothing is lost.
        try FileManager.default.moveItem(atPath: path + ".away", toPath: path)
        try await store.flush()
        #expect(!persistence.hasPendingWrites)
        try database.close()
        let reopened = try SwiduxDatabase(path: path, migrations: CSchema.migrations)
        #expect(try await reopened.hydrate(CSchema.lists).ids == ["a", "b"])
        try reopened.close()
    }

    @Test("A flush to a deleted file, or to a file replaced by another, fails naming the path; the changes stay pending")
    func deletedOrReplaced() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let (_, persistence, store) = try openStore(path)
        store.send(CEdit { $0.lists["a"] = CList(id: "a", name: "saved") })
        try await store.flush()

        try FileManager.default.removeItem(atPath: path)
        store.send(CEdit { $0.lists["b"] = CList(id: "b", name: "pending") })
        for attempt in 1...2 {
            var failure: (any Error)?
            do { try await store.flush() } catch { failure = error }
            let error = (failure as? PersistenceWriteFailure)?.underlying as? SwiduxDatabaseError ?? failure as? SwiduxDatabaseError
            #expect(error?.cause == .fileReplaced, "attempt \(attempt)")
            #expect(error?.path == path)
            #expect(persistence.hasPendingWrites)
            // Another file at the path is not the one that was opened either.
            if attempt == 1 { #expect(FileManager.default.createFile(atPath: path, contents: Data("another file".utf8))) }
        }
    }
}
