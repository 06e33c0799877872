/// Changes made outside a ``Store`` — by another process, plain SQL, a sync engine — for
/// the store to take in with ``Store/applyExternalChanges(_:)``.
///
/// ```swift
/// var changes = ExternalChanges<AppState>(origin: "sync")
/// changes.upsert(todo, in: \.todos)                       // new rows are appended
/// changes.upsert(other, in: \.todos, before: nextID)      // or placed before `nextID`
/// changes.delete(oldID, in: \.todos)
/// store.applyExternalChanges(changes)
/// ```
///
/// List the upserts of one entity store in the source's order: rows that must be placed
/// (new to the store, or marked `moved`) are placed in that order, each run of them before
/// the `before` id of its last row (at the end when it is `nil` or not in the store).
///
/// A later record of an id replaces an earlier one within one batch.
public struct ExternalChanges<State> {
    /// Who made the changes, for logs (`"sqlite:/path/app.sqlite"`, `"sync"`).
    ///
    /// ```swift
    /// logger.info("\(changes.origin): \(changes.count) changes")
    /// ```
    public var origin: String

    var parts: [any ExternalChangesPart<State>] = []

    /// An empty batch.
    ///
    /// ```swift
    /// var changes = ExternalChanges<AppState>(origin: "import")
    /// ```
    public init(origin: String) {
        self.origin = origin
    }

    /// `true` when the batch holds no change.
    ///
    /// ```swift
    /// if !changes.isEmpty { store.applyExternalChanges(changes) }
    /// ```
    public var isEmpty: Bool { parts.allSatisfy(\.isEmpty) }

    /// The number of upserted and deleted ids (a full snapshot counts its entities).
    ///
    /// ```swift
    /// changes.count  // 3
    /// ```
    public var count: Int { parts.reduce(0) { $0 + $1.count } }

    /// Records that the source holds `entity`. Placed only when new to the store or when
    /// `moved` (its place in the source's order changed): before the entity `before`, at the
    /// end when `before` is `nil`.
    ///
    /// ```swift
    /// changes.upsert(todo, in: \.todos)
    /// changes.upsert(moved, in: \.todos, before: nextID, moved: true)
    /// ```
    public mutating func upsert<Entity>(
        _ entity: Entity,
        in keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        before successor: Entity.ID? = nil,
        moved: Bool = false
    ) {
        modifyPart(keyPath) { $0.upsert(ExternalUpsert(entity: entity, successors: successor.map { [$0] } ?? [], moved: moved)) }
    }

    /// ``upsert(_:in:before:moved:)`` with several successors, nearest first: the entity is
    /// placed before the first one the store has (the nearest may be gone from it).
    package mutating func upsert<Entity>(
        _ entity: Entity,
        in keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        beforeFirstOf successors: [Entity.ID],
        moved: Bool,
        placeOnly: Bool = false
    ) {
        modifyPart(keyPath) {
            $0.upsert(ExternalUpsert(entity: entity, successors: successors, moved: moved, placeOnly: placeOnly))
        }
    }

    /// Records that the source no longer holds the entity `id`.
    ///
    /// ```swift
    /// changes.delete(id, in: \.todos)
    /// ```
    public mutating func delete<Entity>(_ id: Entity.ID, in keyPath: WritableKeyPath<State, EntityStore<Entity>>) {
        modifyPart(keyPath) { $0.delete(id) }
    }

    /// Records the source's complete contents for the entity store, in its order (a
    /// re-hydration): entities it lacks are deleted, the others upserted, the order
    /// becomes the source's (entities only the store has follow). Earlier records of
    /// this key path in the batch are replaced.
    ///
    /// ```swift
    /// changes.replaceAll(with: try table.fetchAll(db), in: \.todos)
    /// ```
    public mutating func replaceAll<Entity>(with entities: [Entity], in keyPath: WritableKeyPath<State, EntityStore<Entity>>) {
        modifyPart(keyPath) { $0.replaceAll(with: entities) }
    }

    /// ``replaceAll(with:in:)``, treating the ids in `keeping` as changed locally (kept as
    /// the store has them): for sources that know the store wrote them after the snapshot.
    package mutating func replaceAll<Entity>(
        with entities: [Entity], in keyPath: WritableKeyPath<State, EntityStore<Entity>>, keeping: Set<Entity.ID>
    ) {
        modifyPart(keyPath) { $0.replaceAll(with: entities); $0.keep = keeping }
    }

    private mutating func modifyPart<Entity>(
        _ keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        _ body: (inout EntityChangesPart<State, Entity>) -> Void
    ) {
        if let index = parts.firstIndex(where: { $0.anyKeyPath == keyPath }),
           var part = parts[index] as? EntityChangesPart<State, Entity> {
            body(&part)
            parts[index] = part
        } else {
            var part = EntityChangesPart<State, Entity>(keyPath: keyPath)
            body(&part)
            parts.append(part)
        }
    }
}

/// What ``Store/applyExternalChanges(_:)`` did with a batch: passed to middleware
/// (``Middleware/didApplyExternalChanges(_:state:)``) and returned.
///
/// ```swift
/// let applied = store.applyExternalChanges(changes)
/// if !applied.keptLocal.isEmpty { print("kept local values of \(applied.keptLocal.count) entities") }
/// ```
public struct AppliedExternalChanges: Sendable, CustomStringConvertible {
    /// Who made the changes (``ExternalChanges/origin``).
    public var origin: String
    /// Entities inserted or replaced.
    public var upserted: Int = 0
    /// Entities removed.
    public var deleted: Int = 0
    /// Ids left as they are because the store has a change of them not yet flushed (its
    /// value is written later and wins).
    public var keptLocal: [any Hashable & Sendable] = []
    /// The entity stores the batch touched (their key paths).
    public var slices: [String] = []

    /// Creates a report.
    ///
    /// ```swift
    /// let report = AppliedExternalChanges(origin: "sync")
    /// ```
    public init(origin: String) {
        self.origin = origin
    }

    /// "external changes from sync: 2 upserted, 1 deleted, 0 kept local (\\AppState.todos)".
    public var description: String {
        "external changes from \(origin): \(upserted) upserted, \(deleted) deleted, \(keptLocal.count) kept local (\(slices.joined(separator: ", ")))"
    }
}

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
