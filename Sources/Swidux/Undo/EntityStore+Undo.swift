// Undo by patches: what an `EntityStore` reports, at mutation time, to the undo step
// being recorded, and how a recorded patch is applied back.
//
// While a `Store` records an undo step (an undoable action's dispatch, or the application
// of an undo or redo step), it installs a fresh `EntityUndoCapture` in each of the state's
// entity stores. Every mutation path then makes one call, `captureForUndo(_:)` (or, for an
// update, `captureUpdateForUndo`), before it changes anything: the capture keeps the
// previous value of each id the first time it is touched (or "absent"), and a
// chronological log of the membership and order changes
// (insertions, removals with their position at that moment, the previous relative order of
// the entities a sort or move rearranged). Nothing holds the store's storage meanwhile, so
// the mutation stays in place (no copy-on-write copy): memory and time are proportional
// to what the action changed.
//
// Applying a patch replays the log backwards (exact when the store is as the step left it;
// best effort otherwise), then sets every touched id back to its previous value (present
// or absent). It goes through the recording mutations, so that persistence writes exactly
// the entities it touched, and the capture installed meanwhile records the inverse patch
// (what redo applies).
//
// The capture also holds the storage the store had when the step began, until the first
// in-place mutation releases it: an action that replaces the store wholesale
// (`state.items = EntityStore(…)`) is then recorded as the difference between the two.

extension EntityStore {
    /// Reports a change about to be made to the undo step being recorded, if any. Every
    /// mutation path calls it once, before it mutates anything.
    @inlinable
    func captureForUndo(_ event: @autoclosure () -> EntityUndoEvent<Entity>) {
        guard let capture = _undoCapture, capture.isActive else { return }
        capture.record(event(), in: storage)
    }

    /// ``captureForUndo(_:)`` of an update (the commonest change), without an event value:
    /// `old`, the entity about to change in `slot`, moves into the step being recorded, if
    /// any (no copy). The capture is borrowed, not retained: the store holds it throughout.
    @inlinable
    func captureUpdateForUndo(_ old: consuming Entity, slot: Int) {
        guard let capture = _undoCapture.map(Unmanaged.passUnretained) else { return }
        var moved = Optional(consume old)
        capture._withUnsafeGuaranteedRef { capture in
            if capture.isActive { capture.recordUpdate(moved.take().unsafelyUnwrapped, slot: slot, in: storage) }
        }
    }

    /// ``captureUpdateForUndo(_:slot:)`` of the entity in `slot` (read only when a step is
    /// recorded). It retains the capture: borrowing it here makes the subscript's setter, which
    /// inlines this, about 1.5% slower on its removal path (measured).
    @inlinable
    func captureUpdateForUndo(inSlot slot: Int) {
        guard let capture = _undoCapture, capture.isActive else { return }
        capture.recordUpdate(storage.entity(inSlot: slot), slot: slot, in: storage)
    }

    /// Starts recording an undo step in this store. `retaining`: hold the storage until the
    /// first captured mutation, so that a wholesale replacement is recorded too (a mutation
    /// path that does not capture would then copy the storage).
    /// `make`: a capture's `makeNext` from an earlier step, if any.
    mutating func beginUndoCapture(
        retaining: Bool = true,
        make: ((Storage?, ChangeFingerprint, Bool) -> EntityUndoCapture<Entity>)? = nil
    ) -> EntityUndoCapture<Entity> {
        let capture = make?(retaining ? storage : nil, _changeFingerprint, retaining)
            ?? EntityUndoCapture(storage: retaining ? storage : nil, fingerprint: _changeFingerprint, retains: retaining)
        _undoCapture = capture
        return capture
    }

    /// Ends the step `capture` recorded; returns its patch, or `nil` if the store did not change.
    @usableFromInline
    mutating func endUndoCapture(_ capture: EntityUndoCapture<Entity>) -> EntityUndoPatch<Entity>? {
        capture.isActive = false
        if _undoCapture !== capture, let old = capture.retained {
            // Replaced wholesale (not mutated in place): record the difference.
            capture.recordReplacement(of: old, by: storage)
        }
        capture.retained = nil
        _undoCapture = nil
        guard _changeFingerprint != capture.startFingerprint else { return nil }
        capture.finishStep(storage)
        var patch = EntityUndoPatch<Entity>()   // taken out: a copy of the store may keep the capture alive
        swap(&patch, &capture.patch)
        return patch.isEmpty ? nil : patch
    }

    /// ``endUndoCapture(_:)`` with the patch boxed, by the capture's specialized `finish`
    /// when a mutation installed it.
    @inlinable
    mutating func endUndoCaptureBoxed(_ capture: EntityUndoCapture<Entity>) -> UndoStorePatch? {
        guard let finish = capture.finish, _undoCapture === capture else {
            return endUndoCapture(capture).map { EntityUndoPatchBox($0) }
        }
        capture.isActive = false
        capture.retained = nil
        _undoCapture = nil
        guard _changeFingerprint != capture.startFingerprint else { return nil }
        return finish(capture, storage)
    }

    /// Applies an undo patch to the current contents: replays its log backwards, then sets
    /// every id it touched back to its previous value (present or absent). Recorded like
    /// any change.
    mutating func applyUndoPatch(_ patch: EntityUndoPatch<Entity>) {
        // Entities the step removed and inserted again without changing their value (a
        // delete and re-insert that moved them): the log puts back the removed value; they
        // keep their current one (changed since, maybe, by a skipped action or another writer).
        var unchanged: [ID: Entity] = [:]
        if !patch.steps.isEmpty {
            let touched = Set(patch.touchedIDs)
            for step in patch.steps {
                if case .inserted(let id) = step, !touched.contains(id), let current = self[id] { unchanged[id] = current }
            }
        }
        var index = patch.steps.count - 1
        while index >= 0 {
            switch patch.steps[index] {
            case .inserted(let id):
                self[id] = nil
                index -= 1
            case .reordered(let order):
                restoreRelativeOrder(order)
                index -= 1
            case .removed:
                var start = index
                while start > 0, case .removed = patch.steps[start - 1] { start -= 1 }
                reinsertRemoved(patch.steps[start...index])
                index = start - 1
            }
        }
        for (id, touch) in zip(patch.touchedIDs, patch.touches) {
            // Changed since the step (a skipped action, another writer): only the fields the
            // step changed go back.
            if let previous = touch.previous, let after = touch.after, let current = self[id], current != after {
                self[id] = EntityFieldMerge.merge(previous: previous, after: after, current: current)
            } else {
                self[id] = touch.previous
            }
        }
        for (id, current) in unchanged where self[id] != nil { self[id] = current }
    }

    /// Undoes a run of successive removals (oldest first): the entities come back where
    /// they were before the first of them. Entities present again are left alone.
    mutating func reinsertRemoved(_ run: ArraySlice<EntityUndoPatch<Entity>.Step>) {
        var removed: [(entity: Entity, position: Int)] = []
        var seen = Set<ID>()
        for step in run {
            guard case .removed(let entity, let position) = step, storage.index[entity.id] == nil,
                  seen.insert(entity.id).inserted else { continue }
            removed.append((entity, position))
        }
        guard !removed.isEmpty else { return }
        let oldCount = count
        var placed: [(position: Int, entity: Entity)]
        if removed.count == 1 {
            placed = [(Swift.min(Swift.max(removed[0].position, 0), oldCount), removed[0].entity)]
        } else {
            // Each removal's position counts the entities still there at that moment; find
            // its place among all of them (an order-statistics tree over the final positions).
            var tree = PositionTree(count: oldCount + removed.count)
            placed = removed.map { item in (tree.take(Swift.max(item.position, 0)), item.entity) }
            placed.sort { $0.position < $1.position }
        }
        captureForUndo(.insertions(placed.map(\.entity.id)))
        _changes.indexAll()
        makeUnique()
        storage.reinsert(placed)
        for item in placed {
            _changes.recordInsertion(item.entity.id)
            _observationLog.record(item.entity.id, membership: true)
        }
        if placed[0].position < oldCount { _changes.recordReorder() }
        _changeFingerprint = .next()
    }

    /// Puts the present ids of `order` in that relative order, within the positions they
    /// occupy; the other entities do not move. Recorded as a reorder if anything moved.
    mutating func restoreRelativeOrder(_ order: [ID]) {
        var slots: [Int] = []
        var seen = Set<ID>()
        for id in order {
            if let slot = storage.index[id], seen.insert(id).inserted { slots.append(slot) }
        }
        let sorted = slots.sorted()
        guard sorted != slots else { return }
        captureForUndo(.reorder(sorted.map { storage.entity(inSlot: $0).id }))
        let entities = slots.map { storage.entity(inSlot: $0) }
        _changes.indexAll()
        makeUnique()
        for (slot, entity) in zip(sorted, entities) {
            storage.slots[slot] = entity
            storage.index[entity.id] = slot
        }
        _changes.recordReorder()
        _observationLog.recordMembership()
        _changeFingerprint = .next()
    }
}
