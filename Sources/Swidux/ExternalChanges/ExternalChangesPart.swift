/// One entity's upsert in an external batch.
struct ExternalUpsert<Entity: Identifiable> {
    var entity: Entity
    /// The next entities in the source's order, nearest first: the entity goes before the
    /// first one the store has (at the end when none).
    var successors: [Entity.ID]
    var moved: Bool
    /// Only the place is taken (the id has a local change: its value stays).
    var placeOnly = false
}

/// The changes of one entity store in an ``ExternalChanges`` batch.
protocol ExternalChangesPart<State> {
    associatedtype State
    var anyKeyPath: AnyKeyPath { get }
    var isEmpty: Bool { get }
    var count: Int { get }
    /// Applies the conflict rule against the store's unflushed changes: returns the edit
    /// to apply (to the live state and to any other state, e.g. undo history) and reports.
    @MainActor
    func resolve(against state: State, writers: [StateWriter<State>], into report: inout AppliedExternalChanges) -> (inout State) -> Void
}

struct EntityChangesPart<State, Entity: Identifiable & Equatable & Sendable>: ExternalChangesPart where Entity.ID: Sendable {
    typealias ID = Entity.ID
    let keyPath: WritableKeyPath<State, EntityStore<Entity>>
    var upserts: [ExternalUpsert<Entity>] = []
    var upsertIndex: [ID: Int] = [:]
    var deletions: [ID] = []
    var deletionSet: Set<ID> = []
    var snapshot: [Entity]?
    /// Ids of the snapshot's store treated as changed locally.
    var keep: Set<ID> = []

    init(keyPath: WritableKeyPath<State, EntityStore<Entity>>) {
        self.keyPath = keyPath
    }

    var anyKeyPath: AnyKeyPath { keyPath }
    var isEmpty: Bool { upserts.isEmpty && deletions.isEmpty && snapshot == nil }
    var count: Int { (snapshot?.count ?? upserts.count) + deletions.count }

    mutating func upsert(_ upsert: ExternalUpsert<Entity>) {
        let id = upsert.entity.id
        if deletionSet.remove(id) != nil { deletions.removeAll { $0 == id } }
        if let index = upsertIndex[id] {
            upserts[index] = upsert
        } else {
            upsertIndex[id] = upserts.count
            upserts.append(upsert)
        }
    }

    mutating func delete(_ id: ID) {
        if let index = upsertIndex.removeValue(forKey: id) {
            upserts.remove(at: index)
            for (offset, later) in upserts[index...].enumerated() { upsertIndex[later.entity.id] = index + offset }
        }
        if deletionSet.insert(id).inserted { deletions.append(id) }
    }

    mutating func replaceAll(with entities: [Entity]) {
        upserts = []
        upsertIndex = [:]
        deletions = []
        deletionSet = []
        snapshot = entities
        keep = []
    }

    @MainActor
    func resolve(against state: State, writers: [StateWriter<State>], into report: inout AppliedExternalChanges) -> (inout State) -> Void {
        let local = LocalChanges(of: keyPath, in: state, writers: writers)
        let store = state[keyPath: keyPath]
        var kept: [ID] = []
        var applyUpserts: [ExternalUpsert<Entity>] = []
        var applyDeletions: [ID] = []
        var order: [ID]?
        if let snapshot {
            let local = KeepingLocal(local: local, keep: keep)
            var inSnapshot = Set<ID>(minimumCapacity: snapshot.count)
            for entity in snapshot {
                inSnapshot.insert(entity.id)
                if local.contains(entity.id) {
                    kept.append(entity.id)
                } else if store[entity.id] != entity {
                    applyUpserts.append(ExternalUpsert(entity: entity, successors: [], moved: false))
                }
            }
            for entity in store where !inSnapshot.contains(entity.id) {
                if local.contains(entity.id) { kept.append(entity.id) } else { applyDeletions.append(entity.id) }
            }
            // The source's order, unless the store's own order is waiting to be written.
            if !local.orderPending { order = snapshot.map(\.id) }
        } else {
            for id in deletions {
                if local.contains(id) { kept.append(id) } else if store.contains(id) { applyDeletions.append(id) }
            }
            for upsert in upserts {
                let id = upsert.entity.id
                if local.contains(id) {
                    kept.append(id)
                    // Its value stays, but its stored place is the source's (a local insertion
                    // of an id the source inserted first is written where the source put it).
                    if upsert.moved, !local.orderPending, let current = store[id] {
                        applyUpserts.append(ExternalUpsert(entity: current, successors: upsert.successors, moved: true, placeOnly: true))
                    }
                    continue
                }
                var upsert = upsert
                // The store's order waits to be written: it wins over the source's.
                if local.orderPending { upsert.moved = false }
                if upsert.placeOnly {
                    if upsert.moved, store.contains(id) { applyUpserts.append(upsert) }
                } else if upsert.moved || store[id] != upsert.entity {
                    applyUpserts.append(upsert)
                }
            }
        }
        report.upserted += applyUpserts.count { !$0.placeOnly }
        report.deleted += applyDeletions.count
        report.keptLocal += kept.map { $0 as any Hashable & Sendable }
        if !applyUpserts.isEmpty || !applyDeletions.isEmpty || order != nil { report.slices.append("\(keyPath)") }
        let keyPath = self.keyPath
        return { state in
            state[keyPath: keyPath].applyExternal(deletions: applyDeletions, upserts: applyUpserts, order: order)
        }
    }
}

/// ``LocalChanges`` plus ids a re-hydration must keep.
@MainActor
private struct KeepingLocal<State, Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
    let local: LocalChanges<State, Entity>
    let keep: Set<Entity.ID>
    var orderPending: Bool { local.orderPending }
    func contains(_ id: Entity.ID) -> Bool { keep.contains(id) || local.contains(id) }
}
