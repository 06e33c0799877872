import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// Two stores hydrated from one table write it in turns with random edits. Checks, after
/// every flush: a deleted row never comes back (delete wins over a stale update), each
/// flushed value is stored, and after a sort the writer's rows are first, in its order,
/// followed by the rows it does not hold, in their previous relative order.
///
/// Steps per seed: `SWIDUX_SQL_MODEL_STEPS` (default 300).
@Suite("Two writers on one table: a model test")
struct TwoWritersModelTests {
    static var steps: Int { ProcessInfo.processInfo.environment["SWIDUX_SQL_MODEL_STEPS"].flatMap(Int.init) ?? 300 }

    struct Writer {
        var store: EntityStore<Todo>
        var inserted: Set<Int> = []
    }

    @Test("Random edits by two writers keep delete-wins and the order rules", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func twoWriters(seed: UInt64) async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        var rng = SeededGenerator(seed: seed)
        var writers = [Writer(store: EntityStore()), Writer(store: EntityStore())]
        var nextID = 0
        var deletedRows: Set<Int> = []
        var vanishedCount = 0

        for step in 0..<Self.steps {
            let w = Int.random(in: 0...1, using: &rng)
            var writer = writers[w]
            // Now and then a writer reloads the table (the other's rows included).
            if Int.random(in: 0..<6, using: &rng) == 0, writer.store.changes.isEmpty {
                writer.store = try await database.hydrate(Schema.todos)
            }
            // A few edits.
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let ids = writer.store.ids
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<3:
                    writer.store[nextID] = Todo(id: nextID, title: "w\(w) \(nextID)", done: false, tags: [])
                    writer.inserted.insert(nextID)
                    nextID += 1
                case 3..<6 where !ids.isEmpty:
                    let id = ids.randomElement(using: &rng)!
                    writer.store.modify(id) { $0.title = "w\(w) step \(step)"; $0.done.toggle() }
                case 6..<8 where !ids.isEmpty:
                    writer.store[ids.randomElement(using: &rng)!] = nil
                case 8 where ids.count > 1:
                    writer.store.sort { ($0.title, $0.id) < ($1.title, $1.id) }
                default:
                    break
                }
            }
            let before = try await database.hydrate(Schema.todos).ids
            let changes = writer.store.drainChanges()
            let batch = WriteBatch(
                writes: changes.upserted.compactMap { writer.store[$0] },
                deletions: changes.deleted + changes.upserted.filter { writer.store[$0] == nil },
                order: changes.orderChanged ? writer.store.ids : nil,
                insertions: writer.inserted.intersection(changes.upserted)
            )
            let result = try await database.writer.write { db in try Schema.todos.write(batch, in: db) }
            writer.inserted.removeAll()
            let vanished = Set(result.vanished)
            vanishedCount += vanished.count
            for id in batch.deletions where !vanished.contains(id) && before.contains(id) { deletedRows.insert(id) }
            // The store learns the deletions (no change recorded).
            if !vanished.isEmpty { writer.store = EntityStore(writer.store.values.filter { !vanished.contains($0.id) }) }
            writers[w] = writer

            let stored = try await database.hydrate(Schema.todos)
            #expect(deletedRows.isDisjoint(with: stored.ids), "seed \(seed) step \(step): deleted rows came back: \(deletedRows.intersection(stored.ids))")
            for entity in batch.writes where !vanished.contains(entity.id) {
                #expect(stored[entity.id] == entity, "seed \(seed) step \(step): \(entity.id) not stored as flushed")
            }
            for id in vanished {
                #expect(!before.contains(id), "seed \(seed) step \(step): \(id) reported vanished but its row existed")
            }
            if let order = batch.order {
                let listed = order.filter { stored.contains($0) }
                let others = before.filter { stored.contains($0) && !order.contains($0) }
                #expect(stored.ids == listed + others, "seed \(seed) step \(step): order \(order), before \(before), stored \(stored.ids)")
            }
        }
        #expect(vanishedCount > 0, "seed \(seed): the run never exercised a stale update or deletion")
    }
}
