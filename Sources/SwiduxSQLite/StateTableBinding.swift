import GRDB

/// An entity table bound to a key path of a state by one writer
/// (``SwiduxDatabase/stateWriter(for:table:)``): how a ``ChangeFeedBatch`` becomes
/// ``ExternalChanges`` of that state, for the store that writer belongs to.
struct StateTableBinding<State>: @unchecked Sendable {
    let feedTable: FeedTable
    let keyPath: AnyKeyPath
    /// The writer's identity in the journal's record of own writes.
    let token: JournalWriterToken
    /// The `StateWriter` (weak): tells which store's middleware holds it.
    private let writerReference: WeakReference
    var writer: AnyObject? { writerReference.object }
    /// Adds the batch's changes of the table, leaving out rows this writer flushed after
    /// the other writer's change (the file holds the store's value: the store keeps it).
    let add: @MainActor (_ batch: ChangeFeedBatch, _ changes: inout ExternalChanges<State>, _ journal: JournalState) -> Void

    @MainActor
    init<Entity>(keyPath: WritableKeyPath<State, EntityStore<Entity>>, table: EntityTable<Entity>, writer: AnyObject?, token: JournalWriterToken) {
        self.feedTable = FeedTable(table)
        self.keyPath = keyPath
        self.token = token
        self.writerReference = WeakReference(writer)
        let name = table.name
        let writers: Set<ObjectIdentifier> = [ObjectIdentifier(token)]
        self.add = { batch, changes, journal in
            guard let tableChanges = batch.changes(in: table) else { return }
            // This writer wrote the row at or after the change: the store holds that value.
            func ownSince(_ id: Entity.ID, _ sequence: Int64) -> Bool {
                guard let own = journal.ownSequence(of: writers, table: name, id: id.databaseValue) else { return false }
                return own >= sequence
            }
            if let all = tableChanges.all {
                let keeping = Set(journal.ownIDs(of: writers, table: name, after: batch.cursor).compactMap { Entity.ID.fromDatabaseValue($0) })
                changes.replaceAll(with: all, in: keyPath, keeping: keeping)
                return
            }
            for deletion in tableChanges.deletions where !ownSince(deletion.id, deletion.sequence) {
                changes.delete(deletion.id, in: keyPath)
            }
            for upsert in tableChanges.upserts {
                // Written by this writer since: its value is the store's, its place the file's.
                let placeOnly = ownSince(upsert.entity.id, upsert.sequence)
                if placeOnly, !upsert.moved { continue }
                changes.upsert(upsert.entity, in: keyPath, beforeFirstOf: upsert.successors, moved: upsert.moved, placeOnly: placeOnly)
            }
        }
    }

    /// The same table and key path (the fallback of a store none of whose writers is known).
    func isSameTarget(as other: Self) -> Bool {
        keyPath == other.keyPath && feedTable.name == other.feedTable.name
    }
}

/// A weak reference, for a `Sendable` value that must not keep its object alive.
final class WeakReference: @unchecked Sendable {
    weak var object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
}
