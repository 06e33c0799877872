import GRDB

/// An entity table bound to a key path of a state (by ``SwiduxDatabase/stateWriter(for:table:)``):
/// how a ``ChangeFeedBatch`` becomes ``ExternalChanges`` of that state.
struct StateTableBinding<State>: @unchecked Sendable {
    let feedTable: FeedTable
    let keyPath: AnyKeyPath
    /// Adds the batch's changes of the table, leaving out rows this database flushed after
    /// the other writer's change (the file holds the store's value: the store keeps it).
    let add: @MainActor (_ batch: ChangeFeedBatch, _ changes: inout ExternalChanges<State>, _ journal: JournalState) -> Void

    @MainActor
    init<Entity>(keyPath: WritableKeyPath<State, EntityStore<Entity>>, table: EntityTable<Entity>) {
        self.feedTable = FeedTable(table)
        self.keyPath = keyPath
        let name = table.name
        self.add = { batch, changes, journal in
            guard let tableChanges = batch.changes(in: table) else { return }
            func ownLater(_ id: Entity.ID, than sequence: Int64) -> Bool {
                guard let own = journal.ownSequence(table: name, id: id.databaseValue) else { return false }
                return own > sequence
            }
            if let all = tableChanges.all {
                let keeping = Set(journal.ownIDs(table: name, after: batch.cursor).compactMap { Entity.ID.fromDatabaseValue($0) })
                changes.replaceAll(with: all, in: keyPath, keeping: keeping)
                return
            }
            for deletion in tableChanges.deletions where !ownLater(deletion.id, than: deletion.sequence) {
                changes.delete(deletion.id, in: keyPath)
            }
            for upsert in tableChanges.upserts {
                // Written by this database since: its value is the store's, its place the file's.
                let placeOnly = ownLater(upsert.entity.id, than: upsert.sequence)
                if placeOnly, !upsert.moved { continue }
                changes.upsert(upsert.entity, in: keyPath, beforeFirstOf: upsert.successors, moved: upsert.moved, placeOnly: placeOnly)
            }
        }
    }
}
