/// What one entity store reports to the undo step being recorded (see the top of this file).
/// Only the thread that mutates the store uses it, during one dispatch.
@usableFromInline
final class EntityUndoCapture<Entity: Identifiable & Equatable & Sendable>: @unchecked Sendable where Entity.ID: Sendable {
    @usableFromInline typealias ID = Entity.ID
    /// The fields, behind a pointer: a class's stored properties pay a run-time exclusivity
    /// check on every access, and a recorded step makes about twenty. Every access goes
    /// through the computed properties below, none held across another.
    @usableFromInline
    struct Fields {
        @usableFromInline var isActive = true
        @usableFromInline var retains: Bool
        @usableFromInline var retained: EntityStore<Entity>.Storage?
        @usableFromInline var startFingerprint: ChangeFingerprint
        @usableFromInline var patch = EntityUndoPatch<Entity>()
        @usableFromInline var mayHoldUnchanged = false
        /// A box from a step that left the history, whose buffers the next step records into
        /// and which then holds that step's patch (see `clearPatch(reusing:)`).
        @usableFromInline var spare: EntityUndoPatchBox<Entity>?
        @usableFromInline var finish: ((EntityUndoCapture<Entity>, EntityStore<Entity>.Storage) -> UndoStorePatch?)?
        @usableFromInline var makeNext: ((EntityStore<Entity>.Storage?, ChangeFingerprint, Bool) -> EntityUndoCapture<Entity>)?
        @usableFromInline var makeRecorder: ((EntityUndoCapture<Entity>) -> EntityUndoRecorder)?

        @inlinable
        init(retains: Bool, retained: EntityStore<Entity>.Storage?, startFingerprint: ChangeFingerprint) {
            self.retains = retains
            self.retained = retained
            self.startFingerprint = startFingerprint
        }
    }
    @usableFromInline let fields: UnsafeMutablePointer<Fields>

    /// `false` once the step is recorded: a copy of the store kept elsewhere reports nothing.
    @inlinable var isActive: Bool {
        get { fields.pointee.isActive }
        set { fields.pointee.isActive = newValue }
    }
    /// Whether the capture holds the store's storage between mutations (see `retained`).
    @inlinable var retains: Bool {
        get { fields.pointee.retains }
        set { fields.pointee.retains = newValue }
    }
    /// The storage when the step began, until the first in-place mutation; then the storage
    /// as the last in-place mutation left it, until the next one. If the store is replaced
    /// wholesale meanwhile (`state.items = EntityStore(…)`), the replacement is recorded as
    /// the difference from it, after what was recorded in place.
    @inlinable var retained: EntityStore<Entity>.Storage? {
        _read { yield fields.pointee.retained }
        _modify { yield &fields.pointee.retained }
    }
    /// The fingerprint when the step began: unchanged means nothing changed.
    @inlinable var startFingerprint: ChangeFingerprint {
        get { fields.pointee.startFingerprint }
        set { fields.pointee.startFingerprint = newValue }
    }
    @inlinable var patch: EntityUndoPatch<Entity> {
        _read { yield fields.pointee.patch }
        _modify { yield &fields.pointee.patch }
    }
    /// Whether a touched id may be back to its previous value at the end of the step: it
    /// was noted twice (changed, then changed again), or by a path that notes without a
    /// change (`merge(from:)`). Otherwise each id was noted once, just before a mutation that
    /// changed it, and the end of the step has nothing to compare (`finishStep`).
    @inlinable var mayHoldUnchanged: Bool {
        get { fields.pointee.mayHoldUnchanged }
        set { fields.pointee.mayHoldUnchanged = newValue }
    }

    /// Notes `id`'s previous value in the patch (see `EntityUndoPatch.note`).
    @inlinable
    func note(_ id: ID, _ value: consuming Entity?, slot: Int = -1) {
        if !patch.note(id, value, slot: slot) { mayHoldUnchanged = true }
    }

    /// Ends the step's patch on `storage` (see `EntityUndoPatch.finishStep`).
    @inlinable
    func finishStep(_ storage: EntityStore<Entity>.Storage) {
        patch.finishStep(storage, mayHoldUnchanged: mayHoldUnchanged)
    }
    /// Set by the first recorded mutation, in code specialized for the entity type (the
    /// module that mutates the store): the end of the step (`finishStep`, the patch taken
    /// out, boxed), and the creation of the next step's capture. The generic `Store` would
    /// run them unspecialized, paying a generic metadata lookup for nearly every line.
    @inlinable var spare: EntityUndoPatchBox<Entity>? {
        _read { yield fields.pointee.spare }
        _modify { yield &fields.pointee.spare }
    }
    @inlinable var finish: ((EntityUndoCapture<Entity>, EntityStore<Entity>.Storage) -> UndoStorePatch?)? {
        get { fields.pointee.finish }
        set { fields.pointee.finish = newValue }
    }
    @inlinable var makeNext: ((EntityStore<Entity>.Storage?, ChangeFingerprint, Bool) -> EntityUndoCapture<Entity>)? {
        get { fields.pointee.makeNext }
        set { fields.pointee.makeNext = newValue }
    }
    /// Also installed by the first recorded mutation: for a store at a known address (a
    /// stored property of the state), the beginning and the end of every later step, in
    /// code specialized for the entity type (see `EntityUndoCaptureHolder`).
    @inlinable var makeRecorder: ((EntityUndoCapture<Entity>) -> EntityUndoRecorder)? {
        get { fields.pointee.makeRecorder }
        set { fields.pointee.makeRecorder = newValue }
    }

    @usableFromInline
    init(storage: EntityStore<Entity>.Storage?, fingerprint: ChangeFingerprint, retains: Bool) {
        fields = .allocate(capacity: 1)
        fields.initialize(to: Fields(retains: retains, retained: storage, startFingerprint: fingerprint))
    }

    deinit {
        fields.deinitialize(count: 1)
        fields.deallocate()
    }

    /// Installs `finish` and `makeNext`, compiled where this is inlined (see `finish`).
    @inlinable
    func installSpecialized() {
        finish = { capture, storage in capture.takePatch(storage) }
        makeNext = { storage, fingerprint, retains in
            let capture = EntityUndoCapture(storage: storage, fingerprint: fingerprint, retains: retains)
            capture.installSpecialized()
            return capture
        }
        makeRecorder = { capture in
            let holder = EntityUndoCaptureHolder(capture)
            return EntityUndoRecorder(
                begin: { (address: UnsafeMutableRawPointer, retaining: Bool, spare: consuming UndoStorePatch?) in
                    holder.begin(address.assumingMemoryBound(to: EntityStore<Entity>.self), retaining: retaining, spare: spare)
                },
                end: { address in holder.end(address.assumingMemoryBound(to: EntityStore<Entity>.self)) })
        }
    }

    /// The end of a step that changed the store (`storage`, its storage now): its patch,
    /// boxed, or `nil` when the changes cancelled out.
    @inlinable
    func takePatch(_ storage: EntityStore<Entity>.Storage) -> UndoStorePatch? {
        finishStep(storage)
        guard !patch.isEmpty else { return nil }
        // Taken out (a copy of the store may keep the capture alive), moved, not copied,
        // into the spare box if there is one.
        guard let box = spare.take() else {
            var taken = EntityUndoPatch<Entity>()
            swap(&taken, &patch)
            return EntityUndoPatchBox(taken)
        }
        // The box's patch is empty (see `clearPatch(reusing:)`): the capture gets it back.
        swap(&box.patch, &patch)
        return box
    }

    /// Records `event`, about to be applied to `storage`.
    @inlinable
    func record(_ event: EntityUndoEvent<Entity>, in storage: EntityStore<Entity>.Storage) {
        willRecord(in: storage)
        switch event {
        case .insertion(let id):
            note(id, nil)
            patch.steps.append(.inserted(id))
        default:
            recordMembership(event, in: storage)
        }
    }

    /// What every record does first: lets the mutation about to be made to `storage` find it
    /// uniquely referenced (no copy), and installs the specialized end of the step.
    @inlinable @inline(__always)
    func willRecord(in storage: EntityStore<Entity>.Storage) {
        if retained === storage { retained = nil }
        if finish == nil { installSpecialized() }
    }

    /// Records the update of `old`, in `slot` of `storage` (the commonest change, without an
    /// event value; see ``record(_:in:)``).
    @inlinable
    func recordUpdate(_ old: consuming Entity, slot: Int, in storage: EntityStore<Entity>.Storage) {
        willRecord(in: storage)
        let id = old.id
        note(id, consume old, slot: slot)
    }

    /// Empties the patch for a new step (nothing a step noted outlives it: a step that ended
    /// without a change keeps its patch). With `spare`, a box of this capture's entity type
    /// from a step that left the history, the step records into the box's cleared buffers,
    /// and the box then holds its patch (`finish`), if nothing else holds the box.
    @inlinable
    func clearPatch(reusing spare: consuming UndoStorePatch?) {
        if spare != nil {
            var box = unsafeDowncast(spare.take().unsafelyUnwrapped, to: EntityUndoPatchBox<Entity>.self)
            if isKnownUniquelyReferenced(&box) {
                box.patch.clearForReuse()
                swap(&patch, &box.patch)
                // The box now holds the previous patch: empty, for `finish` to swap back.
                if !box.patch.isEmpty || box.patch.places != nil { box.patch = EntityUndoPatch() }
                self.spare = consume box
                return
            }
        }
        if !patch.isEmpty || patch.places != nil { patch.clearForReuse() }
    }

    /// A mutation has changed the store: hold its storage again (see `retained`).
    @inlinable
    func didMutate(_ storage: EntityStore<Entity>.Storage) {
        if retains, isActive { retained = storage }
    }

    /// The rarer events: removals, reorders, replacements, merges.
    @usableFromInline
    func recordMembership(_ event: EntityUndoEvent<Entity>, in storage: EntityStore<Entity>.Storage) {
        switch event {
        case .insertion:
            preconditionFailure("recorded inline")
        case .insertions(let ids):
            for id in ids {
                note(id, nil)
                patch.steps.append(.inserted(id))
            }
        case .removal(let old, let slot):
            note(old.id, old)
            patch.steps.append(.removed(old, position: storage.position(ofSlot: slot)))
        case .removals(let slots):
            // Recorded as successive removals, lowest first: each at its position once the
            // ones before it are gone.
            for (offset, slot) in slots.enumerated() {
                let old = storage.entity(inSlot: slot)
                note(old.id, old)
                patch.steps.append(.removed(old, position: storage.position(ofSlot: slot) - offset))
            }
        case .removeAll:
            for slot in storage.slots.indices {
                guard let old = storage.slots[slot] else { continue }
                note(old.id, old)
                patch.steps.append(.removed(old, position: 0))
            }
        case .reorder(let order):
            patch.steps.append(.reordered(order))
        case .replacement(let other):
            recordReplacement(of: storage, by: other.storage)
        case .merge(let replaced, let added):
            mayHoldUnchanged = true   // `replaced` may hold entities written back unchanged
            for old in replaced { note(old.id, old) }
            for id in added {
                note(id, nil)
                patch.steps.append(.inserted(id))
            }
        }
    }

    /// Records the difference between two storages as removals (lowest first), then
    /// insertions (in `new`'s order), then a reorder if `new`'s order is not what they give.
    func recordReplacement(of old: EntityStore<Entity>.Storage, by new: EntityStore<Entity>.Storage) {
        guard old !== new else { return }
        var removedSoFar = 0
        var position = 0
        var survivors: [ID] = []
        for slot in old.slots.indices {
            guard let entity = old.slots[slot] else { continue }
            if let current = new.entity(forID: entity.id) {
                if current != entity { note(entity.id, entity) }
                survivors.append(entity.id)
            } else {
                note(entity.id, entity)
                patch.steps.append(.removed(entity, position: position - removedSoFar))
                removedSoFar += 1
            }
            position += 1
        }
        var newOrder: [ID] = []
        newOrder.reserveCapacity(new.count)
        var added: [ID] = []
        for slot in new.slots.indices {
            guard let entity = new.slots[slot] else { continue }
            newOrder.append(entity.id)
            if old.index[entity.id] == nil {
                note(entity.id, nil)
                patch.steps.append(.inserted(entity.id))
                added.append(entity.id)
            }
        }
        let intermediate = survivors + added
        if intermediate != newOrder { patch.steps.append(.reordered(intermediate)) }
    }
}

/// How a store at a known address records its undo steps (see `TypedStoreSlot`): `begin`
/// installs a capture in the store at the address (`retaining` as in `beginUndoCapture`),
/// `end` ends it and gives the boxed patch (`endUndoCaptureBoxed`).
@usableFromInline
final class EntityUndoRecorder {
    /// The store's address, `retaining`, and a patch of a step that left the history to
    /// record into (`EntityUndoCapture.clearPatch(reusing:)`), if any.
    let begin: (UnsafeMutableRawPointer, Bool, consuming UndoStorePatch?) -> Void
    let end: (UnsafeMutableRawPointer) -> UndoStorePatch?

    @usableFromInline
    init(begin: @escaping (UnsafeMutableRawPointer, Bool, consuming UndoStorePatch?) -> Void,
         end: @escaping (UnsafeMutableRawPointer) -> UndoStorePatch?) {
        self.begin = begin
        self.end = end
    }
}

/// The capture a store slot records with, reused from step to step while nothing else
/// holds it (a copy of the store made during a step keeps its capture: the next step then
/// gets a new one, so that a mutation of that copy records nothing into it).
@usableFromInline
final class EntityUndoCaptureHolder<Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
    /// Unchecked: read and replaced once per step, on the main actor, never while another
    /// access is open (a checked access costs a run-time exclusivity check each time).
    @exclusivity(unchecked) @usableFromInline var capture: EntityUndoCapture<Entity>

    @usableFromInline
    init(_ capture: EntityUndoCapture<Entity>) {
        self.capture = capture
    }

    /// Starts a step in the store at `store`, as `EntityStore.beginUndoCapture` does.
    @inlinable
    func begin(_ store: UnsafeMutablePointer<EntityStore<Entity>>, retaining: Bool, spare: consuming UndoStorePatch?) {
        if !isKnownUniquelyReferenced(&capture) {
            capture = EntityUndoCapture(storage: nil, fingerprint: store.pointee._changeFingerprint, retains: retaining)
            capture.installSpecialized()
        }
        var spare = spare
        // Not retained (the holder holds it, and nothing here replaces it).
        Unmanaged.passUnretained(capture)._withUnsafeGuaranteedRef { capture in
            capture.isActive = true
            capture.clearPatch(reusing: spare.take())
            capture.mayHoldUnchanged = false
            capture.retains = retaining
            capture.retained = retaining ? store.pointee.storage : nil
            capture.startFingerprint = store.pointee._changeFingerprint
            store.pointee._undoCapture = capture
        }
    }

    /// Ends the step of the store at `store`, as `EntityStore.endUndoCaptureBoxed` does, in
    /// code specialized for the entity type (no `finish` closure to load and call).
    @inlinable
    func end(_ store: UnsafeMutablePointer<EntityStore<Entity>>) -> UndoStorePatch? {
        Unmanaged.passUnretained(capture)._withUnsafeGuaranteedRef { capture in
            // Replaced wholesale (or never begun): the general path records the difference.
            guard store.pointee._undoCapture === capture else { return store.pointee.endUndoCaptureBoxed(capture) }
            capture.isActive = false
            capture.retained = nil
            store.pointee._undoCapture = nil
            guard store.pointee._changeFingerprint != capture.startFingerprint else { return nil }
            // The storage borrowed, not retained (the store holds it).
            return Unmanaged.passUnretained(store.pointee.storage)._withUnsafeGuaranteedRef { capture.takePatch($0) }
        }
    }
}
