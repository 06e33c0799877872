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
           parts[index] is EntityChangesPart<State, Entity> {
            // Taken out of the array first, so that `body` finds its buffers uniquely
            // referenced: a copy left in `parts` would make every upsert copy the batch
            // (quadratic in the batch's size).
            var part = parts.remove(at: index) as! EntityChangesPart<State, Entity>
            body(&part)
            parts.insert(part, at: index)
        } else {
            var part = EntityChangesPart<State, Entity>(keyPath: keyPath)
            body(&part)
            parts.append(part)
        }
    }
}
