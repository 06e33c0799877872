extension Store {
    /// Takes in changes made outside the store — by another process, plain SQL, a sync
    /// engine — as one batch. The one entry point for every source (`store.follow(database)`
    /// in SwiduxSQLite uses it).
    ///
    /// ```swift
    /// var changes = ExternalChanges<AppState>(origin: "sync")
    /// changes.upsert(todo, in: \.todos)
    /// changes.delete(oldID, in: \.todos)
    /// store.applyExternalChanges(changes)
    /// ```
    ///
    /// - The entities are upserted and deleted in their ``EntityStore``s **without being
    ///   recorded**: nothing is written back by the ``PersistenceMiddleware``.
    /// - **Conflict rule**: an id with a local change not yet flushed (recorded, pending in
    ///   its ``StateWriter``, or in the flush in flight) keeps its local value: it is written
    ///   later and wins, as the backend's commit order says. Otherwise the external value
    ///   replaces it. (An update of an entity the source deleted is then refused by the
    ///   backend: delete wins over a stale update, see ``PersistenceMiddleware``.)
    /// - New entities take the source's position (see ``ExternalChanges``).
    /// - Observers are notified row by row, as for an action.
    /// - It is not an undo step, and ``undo()`` never reverts it.
    /// - Middleware see it through ``Middleware/didApplyExternalChanges(_:state:)``
    ///   (``LoggingMiddleware`` logs it).
    ///
    /// Call it on the root store, with a ``PersistenceMiddleware`` (the conflict rule and the
    /// unrecorded edit need it); otherwise nothing is applied and an error is logged.
    ///
    /// - Complexity: O(changed), plus O(*n*) for an entity store whose new entities must go
    ///   before existing ones, or that takes a whole new order.
    @discardableResult
    public func applyExternalChanges(_ changes: ExternalChanges<State>) -> AppliedExternalChanges {
        guard let root = box as? RootBox<State, Action> else {
            return AppliedExternalChanges(origin: changes.origin)
        }
        return root.applyExternalChanges(changes)
    }

    /// The store's persistence middleware (root store only), for SwiduxSQLite's follower.
    package var persistenceMiddleware: PersistenceMiddleware<State>? {
        (box as? RootBox<State, Action>)?.persistence
    }
}

extension RootBox {
    func applyExternalChanges(_ changes: ExternalChanges<State>) -> AppliedExternalChanges {
        var report = AppliedExternalChanges(origin: changes.origin)
        guard !changes.isEmpty else { return report }
        guard let persistence, let editor = persistence.liveStateEditor else {
            logger.error("Swidux: external changes from \(changes.origin) ignored: the store has no PersistenceMiddleware")
            return report
        }
        // No copy of the state is held while it is edited (an entity store would be copied).
        var edits: [(inout State) -> Void] = []
        for part in changes.parts { edits.append(part.resolve(against: state, writers: persistence.writers, into: &report)) }
        if report.upserted > 0 || report.deleted > 0 || !report.slices.isEmpty {
            editor { state in for edit in edits { edit(&state) } }
        }
        for m in middleware { m.didApplyExternalChanges(report, state: state) }
        return report
    }
}
