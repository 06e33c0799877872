import Foundation
import GRDB
import SwiduxSQLite
import SwiduxTesting
import Testing

/// Issue 27, SPEC §1.12 "many writers": on a schema with foreign keys and cascades
/// (lists → items → tags), three stores — two on one `SwiduxDatabase` (two windows), one on a
/// second connection to the file — and a real second process writing plain SQL make random
/// inserts, updates, deletes, undos, redos and flushes. After settling:
/// - every store equals the file, row for row;
/// - `PRAGMA foreign_key_check` is empty;
/// - nothing was lost but what delete-wins removes: an entity missing from the file was
///   deleted by a writer (an action, an undo or a redo, or the process), or an ancestor of
///   it was (a cascade, or an orphan set aside);
/// - every store still saves (a last edit of each reaches the file).
///
/// Knobs: `SWIDUX_MW_MODEL_SEEDS` (default 2), `SWIDUX_MW_MODEL_STEPS` (default 150).
/// The model test's time limit grows with its knobs (about 16 s per seed of 300 steps on a
/// loaded 2-core machine).
private let manyWritersMinutes: Int = {
    let environment = ProcessInfo.processInfo.environment
    let seeds = environment["SWIDUX_MW_MODEL_SEEDS"].flatMap(Int.init) ?? 2
    let steps = environment["SWIDUX_MW_MODEL_STEPS"].flatMap(Int.init) ?? 150
    return max(10, seeds * steps / 150)
}()

@MainActor
@Suite("Many writers on one file: a model test", .timeLimit(.minutes(manyWritersMinutes)))
struct ManyWritersModelTests {
    static var seeds: Int { ProcessInfo.processInfo.environment["SWIDUX_MW_MODEL_SEEDS"].flatMap(Int.init) ?? 2 }
    static var steps: Int { ProcessInfo.processInfo.environment["SWIDUX_MW_MODEL_STEPS"].flatMap(Int.init) ?? 150 }

    /// One writer: a store, the database it writes through, the next id it hands out.
    final class Writer {
        let store: Store<MWState, MWAction>
        let database: SwiduxDatabase
        var nextID: Int
        var failures: [String] = []
        init(store: Store<MWState, MWAction>, database: SwiduxDatabase, firstID: Int) {
            self.store = store
            self.database = database
            nextID = firstID
        }
    }

    /// What the run knows of every entity ever created, and of every deletion a writer made.
    struct Ledger {
        var created: [String: Set<Int>] = ["list": [], "item": [], "tag": []]
        var deleted: [String: Set<Int>] = ["list": [], "item": [], "tag": []]
        var listOfItem: [Int: Int] = [:]
        var itemOfTag: [Int: Int] = [:]

        mutating func note(_ state: MWState) {
            created["list", default: []].formUnion(state.lists.ids)
            created["item", default: []].formUnion(state.items.ids)
            created["tag", default: []].formUnion(state.tags.ids)
            for item in state.items.values { listOfItem[item.id] = item.listId }
            for tag in state.tags.values { itemOfTag[tag.id] = tag.itemId }
        }

        /// Ids present before and absent after one of a writer's own steps: deleted by it.
        mutating func noteDeletions(before: MWState, after: MWState) {
            deleted["list", default: []].formUnion(Set(before.lists.ids).subtracting(after.lists.ids))
            deleted["item", default: []].formUnion(Set(before.items.ids).subtracting(after.items.ids))
            deleted["tag", default: []].formUnion(Set(before.tags.ids).subtracting(after.tags.ids))
        }

        func explainsMissingList(_ id: Int) -> Bool { deleted["list"]!.contains(id) }
        func explainsMissingItem(_ id: Int) -> Bool {
            deleted["item"]!.contains(id) || listOfItem[id].map(explainsMissingList) ?? false
        }
        func explainsMissingTag(_ id: Int) -> Bool {
            deleted["tag"]!.contains(id) || itemOfTag[id].map(explainsMissingItem) ?? false
        }
    }

    struct FileState: Equatable {
        var lists: [Int: MWList]
        var items: [Int: MWItem]
        var tags: [Int: MWTag]
        init(lists: [MWList], items: [MWItem], tags: [MWTag]) {
            self.lists = Dictionary(uniqueKeysWithValues: lists.map { ($0.id, $0) })
            self.items = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
            self.tags = Dictionary(uniqueKeysWithValues: tags.map { ($0.id, $0) })
        }
        init(_ state: MWState) { self.init(lists: state.lists.values, items: state.items.values, tags: state.tags.values) }
    }

    static func fileState(_ database: SwiduxDatabase) throws -> FileState {
        try database.writer.read { db in
            FileState(lists: try MWList.fetchAll(db), items: try MWItem.fetchAll(db), tags: try MWTag.fetchAll(db))
        }
    }

    static func makeWriter(on database: SwiduxDatabase, firstID: Int) throws -> Writer {
        var state = MWState()
        let persistence = try database.persistence(hydrating: &state, MWSchema.persisted(), debounce: .milliseconds(5),
                                                   retry: RetryPolicy(initialDelay: .milliseconds(5), maxDelay: .milliseconds(50)))
        let store = Store(initialState: state, reducer: MWReducer(), environment: (),
                          persistence: persistence, undo: UndoMiddleware(maxDepth: 20, recording: \.lists, \.items, \.tags),
                          undoPolicy: { $0 == .ui ? .skip : .record })
        try store.follow(database, every: .milliseconds(10))
        let writer = Writer(store: store, database: database, firstID: firstID)
        Task { @MainActor [weak writer, persistence] in
            for await failure in persistence.errors { writer?.failures.append("\(failure)") }
        }
        return writer
    }

    @Test("Random edits by three stores and a process on one file: every store equals the file, nothing lost")
    func manyWriters() async throws {
        for seed in 1...Self.seeds {
            try await run(seed: UInt64(seed), steps: Self.steps)
        }
    }

    func run(seed: UInt64, steps: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-mw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.sqlite").path
        let windows = try SwiduxDatabase(path: path, migrations: MWSchema.migrations)      // two stores
        let other = try SwiduxDatabase(path: path, migrations: MWSchema.migrations)        // another connection
        defer { try? windows.close(); try? other.close() }
        if ProcessInfo.processInfo.environment["SWIDUX_MW_TRACE"] != nil {
            for (name, database) in [("windows", windows), ("other", other)] {
                try await database.writer.write { db in
                    db.trace { event in
                        let sql = event.expandedDescription
                        if sql.hasPrefix("DELETE") || sql.contains("9000") { print("SQL \(name): \(sql)") }
                    }
                }
            }
        }
        let writers = [
            try Self.makeWriter(on: windows, firstID: 1_000_000),
            try Self.makeWriter(on: windows, firstID: 2_000_000),
            try Self.makeWriter(on: other, firstID: 3_000_000),
        ]
        var rng = SeededRandomNumberGenerator(seed: seed)
        var ledger = Ledger()
        var processID = 9_000_000
        let processOutput = directory.appendingPathComponent("process.txt").path
        var tracedGone: Set<Int> = []

        for step in 0..<steps {
            if Int.random(in: 0..<10, using: &rng) == 0 {
                // The other process: one plain-SQL transaction on what the file holds.
                processID += 1
                let done = try await ProcessWriter.step(path: path, seed: seed &* 1000 &+ UInt64(step), newID: processID, output: processOutput)
                if let deleted = done.deletedList { ledger.deleted["list", default: []].insert(deleted) }
                if let deleted = done.deletedTag { ledger.deleted["tag", default: []].insert(deleted) }
                if ProcessInfo.processInfo.environment["SWIDUX_MW_TRACE"] != nil { print("TRACE step \(step) process \(done)") }
                if let added = done.addedItem { ledger.created["item", default: []].insert(added.id); ledger.listOfItem[added.id] = added.list }
                if ProcessInfo.processInfo.environment["SWIDUX_MW_TRACE"] != nil, let added = done.addedItem {
                    print("TRACE step \(step) process item \(added.id) in the file after the process: \(try Self.fileState(windows).items[added.id] != nil)")
                }
                continue
            }
            let writer = writers[Int.random(in: 0..<writers.count, using: &rng)]
            let state = writer.store.state
            let before = state
            func newID() -> Int { writer.nextID += 1; return writer.nextID }
            let lists = state.lists.ids, items = state.items.ids, tags = state.tags.ids
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<10: writer.store.send(.addList(newID()))
            case 10..<16 where !lists.isEmpty: writer.store.send(.renameList(lists.randomElement(using: &rng)!, "renamed \(step)"))
            case 16..<24 where !lists.isEmpty: writer.store.send(.deleteList(lists.randomElement(using: &rng)!))
            case 24..<44 where !lists.isEmpty: writer.store.send(.addItem(newID(), list: lists.randomElement(using: &rng)!))
            case 44..<54 where !items.isEmpty: writer.store.send(.editItem(items.randomElement(using: &rng)!, "edited \(step)"))
            case 54..<62 where !items.isEmpty: writer.store.send(.toggle(items.randomElement(using: &rng)!))
            case 62..<68 where !items.isEmpty: writer.store.send(.deleteItem(items.randomElement(using: &rng)!))
            case 68..<80 where !items.isEmpty: writer.store.send(.addTag(newID(), item: items.randomElement(using: &rng)!))
            case 80..<84 where !tags.isEmpty: writer.store.send(.deleteTag(tags.randomElement(using: &rng)!))
            case 84..<88: writer.store.send(.ui)
            case 88..<95: writer.store.undo()
            case 95..<100: writer.store.redo()
            default: writer.store.send(.addList(newID()))
            }
            ledger.note(writer.store.state)
            ledger.noteDeletions(before: before, after: writer.store.state)
            if ProcessInfo.processInfo.environment["SWIDUX_MW_TRACE"] != nil {
                let gone = Set(before.items.ids).subtracting(writer.store.state.items.ids).filter { $0 >= 9_000_000 }
                if !gone.isEmpty { print("TRACE step \(step) writer \(writer.nextID / 1_000_000) removed process items \(gone.sorted())") }
            }
            if ProcessInfo.processInfo.environment["SWIDUX_MW_TRACE"] != nil {
                let now = try Self.fileState(windows)
                for id in ledger.created["item"]! where id >= 9_000_000 && now.items[id] == nil && !ledger.explainsMissingItem(id) && !tracedGone.contains(id) {
                    tracedGone.insert(id)
                    print("TRACE step \(step) process item \(id) gone from the file; list \(String(describing: ledger.listOfItem[id])) in file: \(ledger.listOfItem[id].map { now.lists[$0] != nil } ?? false)")
                }
            }
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: try? await writer.store.flush()
            case 1: try await Task.sleep(for: .milliseconds(Int.random(in: 1...20, using: &rng)))
            default: await Task.yield()
            }
        }

        // Settle: flush everything until every store equals the file (followers caught up).
        var file = try Self.fileState(windows)
        var settled = false
        for _ in 0..<100 {
            for writer in writers { try? await writer.store.flush() }
            try await Task.sleep(for: .milliseconds(100))
            file = try Self.fileState(windows)
            if writers.allSatisfy({ FileState($0.store.state) == file }) { settled = true; break }
        }
        for (index, writer) in writers.enumerated() {
            let held = FileState(writer.store.state)
            let equal = held == file
            #expect(equal, "seed \(seed): store \(index) differs from the file: lists \(Self.diff(held.lists, file.lists)), items \(Self.diff(held.items, file.items)), tags \(Self.diff(held.tags, file.tags))")
        }
        #expect(settled, "seed \(seed): the stores never all equalled the file")
        let dangling = try windows.writer.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
        #expect(dangling.isEmpty, "seed \(seed): foreign_key_check: \(dangling)")

        for id in ledger.created["list"]! where file.lists[id] == nil {
            let explained = ledger.explainsMissingList(id)
            #expect(explained, "seed \(seed): list \(id) was lost")
        }
        for id in ledger.created["item"]! where file.items[id] == nil {
            let explained = ledger.explainsMissingItem(id)
            if !explained, ProcessInfo.processInfo.environment["SWIDUX_MW_TRACE"] != nil {
                let list = ledger.listOfItem[id]
                print("TRACE lost item \(id): list \(String(describing: list)), list in file \(list.map { file.lists[$0] != nil } ?? false), list deleted \(list.map { ledger.deleted["list"]!.contains($0) } ?? false), in stores \(writers.map { $0.store.state.items[id] != nil })")
            }
            #expect(explained, "seed \(seed): item \(id) was lost")
        }
        for id in ledger.created["tag"]! where file.tags[id] == nil {
            let explained = ledger.explainsMissingTag(id)
            #expect(explained, "seed \(seed): tag \(id) was lost")
        }

        // Every store still saves.
        for writer in writers {
            writer.nextID += 1
            let list = writer.nextID
            writer.store.send(.addList(list))
            writer.store.send(.addItem(list + 1, list: list))
            writer.nextID += 1
            await #expect(throws: Never.self, "seed \(seed): a store can no longer save") { try await writer.store.flush() }
            let now = try Self.fileState(windows)
            let saved = now.lists[list] != nil && now.items[list + 1] != nil
            #expect(saved, "seed \(seed): the last edit of a store did not reach the file")
        }
    }

    static func diff<Value: Equatable>(_ a: [Int: Value], _ b: [Int: Value]) -> String {
        let onlyStore = a.keys.filter { b[$0] == nil }.sorted()
        let onlyFile = b.keys.filter { a[$0] == nil }.sorted()
        let differ = a.keys.filter { b[$0] != nil && b[$0] != a[$0] }.sorted()
        return "store only \(onlyStore), file only \(onlyFile), different \(differ)"
    }
}
