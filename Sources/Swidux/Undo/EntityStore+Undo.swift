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

/// One change an `EntityStore` is about to make, as reported to an undo capture.
@usableFromInline
enum EntityUndoEvent<Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
    /// An absent id is about to be appended.
    case insertion(Entity.ID)
    /// Absent ids are about to be inserted (at any positions).
    case insertions([Entity.ID])
    /// The entity in `slot` is about to be removed.
    case removal(Entity, slot: Int)
    /// The entities in these slots (ascending) are about to be removed at once.
    case removals(slots: [Int])
    /// Every entity is about to be removed.
    case removeAll
    /// These ids, in their current relative order, are about to be rearranged.
    case reorder([Entity.ID])
    /// The contents are about to become `other`'s (values and order).
    case replacement(by: EntityStore<Entity>)
    /// `merge(from:)` is about to replace these entities (their values before) and append these ids.
    case merge(replaced: [Entity], added: [Entity.ID])
}

/// The previous values and the membership/order log of one entity store in one undo step.
///
/// What the mutation paths use is `@inlinable`: it is specialized for the entity type in
/// the module that mutates the store (the recording code behind the generic `Store` is not,
/// and would pay generic metadata lookups on every step).
@usableFromInline
struct EntityUndoPatch<Entity: Identifiable & Equatable & Sendable>: @unchecked Sendable where Entity.ID: Sendable {
    @usableFromInline typealias ID = Entity.ID

    /// One membership or order change, in the order they happened.
    @usableFromInline
    enum Step {
        /// The id was inserted (appended, or re-inserted by an undo): undone by removing it.
        case inserted(ID)
        /// The entity was removed at `position` (among the entities present just before):
        /// undone by inserting it back there.
        case removed(Entity, position: Int)
        /// These ids were rearranged; this was their relative order before.
        case reordered([ID])
    }

    /// A touched id and its value before its first change in the step (`nil`: absent).
    @usableFromInline
    struct Touch {
        @usableFromInline let id: ID
        @usableFromInline let previous: Entity?
        /// The slot the entity was in when it was noted (-1: unknown): where the end of the
        /// step looks first (the store may have compacted since: the id is checked).
        @usableFromInline let slot: Int
        @inlinable init(id: ID, previous: consuming Entity?, slot: Int) {
            self.id = id
            self.previous = previous
            self.slot = slot
        }
    }

    /// The touched ids with their previous values, in the order they were first touched.
    @usableFromInline var touches: [Touch]
    /// Touched id → its index in `touches`, kept once there are more than
    /// `linearLimit` of them (below, a linear scan: no hashing, no table to allocate for
    /// the common step that changes a few entities).
    @usableFromInline var places: [ID: Int]?
    /// The membership and order changes, oldest first.
    @usableFromInline var steps: [Step]

    @usableFromInline static var linearLimit: Int { 16 }

    /// Empty (no literal: a literal costs a tuple metadata lookup where not specialized).
    @usableFromInline
    init() {
        touches = Array()
        places = nil
        steps = Array()
    }

    @usableFromInline var isEmpty: Bool { touches.isEmpty && steps.isEmpty }

    /// Keeps `value` as `id`'s previous value unless the step touched `id` already.
    /// Returns `false` if it had (the first value stays).
    @inlinable
    @discardableResult
    mutating func note(_ id: ID, _ value: consuming Entity?, slot: Int = -1) -> Bool {
        if places == nil {
            for index in touches.indices where touches[index].id == id { return false }
            touches.append(Touch(id: id, previous: value, slot: slot))
            if touches.count > Self.linearLimit { indexTouches() }
        } else {
            guard places![id] == nil else { return false }
            places![id] = touches.count
            touches.append(Touch(id: id, previous: value, slot: slot))
        }
        return true
    }

    /// Builds `places` from `touches` (or drops it when they are few again).
    @usableFromInline
    mutating func indexTouches() {
        guard touches.count > Self.linearLimit else {
            places = nil
            return
        }
        var places: [ID: Int] = Dictionary(minimumCapacity: touches.count)
        for index in touches.indices { places[touches[index].id] = index }
        self.places = places
    }

    /// Folds a later patch into this one (coalescing): the first previous value wins, the
    /// logs are concatenated.
    mutating func append(_ newer: EntityUndoPatch) {
        for touch in newer.touches { note(touch.id, touch.previous, slot: touch.slot) }
        steps += newer.steps
    }

    /// Drops `ids` from the patch (they left the state without an undo step: another
    /// writer deleted them), so that applying it does not bring them back.
    mutating func forget(_ ids: Set<ID>) {
        guard !touches.isEmpty || !steps.isEmpty else { return }
        let before = touches.count
        touches.removeAll { ids.contains($0.id) }
        if touches.count != before { indexTouches() }
        steps = steps.compactMap { step in
            switch step {
            case .inserted(let id): return ids.contains(id) ? nil : step
            case .removed(let entity, _): return ids.contains(entity.id) ? nil : step
            case .reordered(let order):
                let kept = order.filter { !ids.contains($0) }
                return kept.count > 1 ? .reordered(kept) : nil
            }
        }
    }

    /// Drops the touched ids whose value is back to the previous one (the step changed
    /// them and changed them back): undo must not overwrite a later change of theirs.
    @inlinable
    mutating func dropUnchanged(_ storage: EntityStore<Entity>.Storage) {
        guard touches.contains(where: { $0.previous == Self.current($0, in: storage) }) else { return }
        touches.removeAll { $0.previous == Self.current($0, in: storage) }
        indexTouches()
    }

    /// The touched entity's value now: in its noted slot if it is still there (no hashing),
    /// else looked up by id.
    @inlinable
    static func current(_ touch: Touch, in storage: EntityStore<Entity>.Storage) -> Entity? {
        if touch.slot >= 0, touch.slot < storage.slots.count, let entity = storage.slots[touch.slot], entity.id == touch.id {
            return entity
        }
        return storage.entity(forID: touch.id)
    }

    /// Ids the patch holds a value or a log entry for (for tests and diagnostics).
    var count: Int { touches.count + steps.count }

    /// The most touches or log entries whose buffers a recycled patch keeps (see
    /// ``clearForReuse()``): a step that touched many entities frees its buffers instead, so
    /// that a later small step does not hold them in the history.
    @usableFromInline static var reusableCapacity: Int { 64 }

    /// Empties the patch, keeping its buffers when they are small (for the next step).
    @inlinable
    mutating func clearForReuse() {
        if touches.capacity <= Self.reusableCapacity, steps.capacity <= Self.reusableCapacity {
            touches.removeAllOneByOne()
            steps.removeAllOneByOne()
            places = nil
        } else {
            self = EntityUndoPatch()
        }
    }
}

/// An entity store's patch in an undo step, as the step holds it (a non-generic base: the
/// step's code is not specialized for the entity types).
@usableFromInline
class UndoStorePatch {
    @usableFromInline init() {}
}

/// An ``EntityUndoPatch`` in a box: moving a step moves a reference, and a step dropped from
/// a full history gives its box (and the box's buffers) back to its store slot for reuse
/// (see `UndoLayout.recycle`). A box is not mutated while a step holds it.
@usableFromInline
final class EntityUndoPatchBox<Entity: Identifiable & Equatable & Sendable>: UndoStorePatch, @unchecked Sendable
where Entity.ID: Sendable {
    /// Unchecked: accessed on the thread that records the store's steps, never while
    /// another access is open (a checked access costs a run-time exclusivity check).
    @exclusivity(unchecked) @usableFromInline var patch: EntityUndoPatch<Entity>

    @usableFromInline
    init(_ patch: EntityUndoPatch<Entity>) {
        self.patch = patch
    }
}

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
    /// changed it, and the end of the step has nothing to compare (`dropUnchanged`).
    @inlinable var mayHoldUnchanged: Bool {
        get { fields.pointee.mayHoldUnchanged }
        set { fields.pointee.mayHoldUnchanged = newValue }
    }

    /// Notes `id`'s previous value in the patch (see `EntityUndoPatch.note`).
    @inlinable
    func note(_ id: ID, _ value: consuming Entity?, slot: Int = -1) {
        if !patch.note(id, value, slot: slot) { mayHoldUnchanged = true }
    }

    /// Drops from the patch the ids back to their previous value, if any may be.
    @inlinable
    func dropUnchanged(_ storage: EntityStore<Entity>.Storage) {
        if mayHoldUnchanged { patch.dropUnchanged(storage) }
    }
    /// Set by the first recorded mutation, in code specialized for the entity type (the
    /// module that mutates the store): the end of the step (`dropUnchanged`, the patch taken
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
        dropUnchanged(storage)
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
        capture.dropUnchanged(storage)
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
        for touch in patch.touches {
            self[touch.id] = touch.previous
        }
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

/// Positions `0..<count`, from which positions are taken one at a time by rank: a Fenwick
/// tree of the positions not taken yet. O(count) to build, O(log count) per take.
struct PositionTree {
    private var tree: [Int]
    private var remaining: Int
    private let top: Int

    init(count: Int) {
        tree = [Int](repeating: 0, count: count + 1)
        for index in 1...Swift.max(count, 1) where index <= count { tree[index] = index & -index }
        remaining = count
        var top = 1
        while top * 2 <= count { top *= 2 }
        self.top = top
    }

    /// Takes the `rank`-th position not taken yet (0-based, clamped to the last one).
    mutating func take(_ rank: Int) -> Int {
        let k = Swift.min(rank, remaining - 1) + 1
        var position = 0
        var left = k
        var step = top
        while step > 0 {
            let next = position + step
            if next < tree.count, tree[next] < left {
                position = next
                left -= tree[next]
            }
            step /= 2
        }
        // `position` is the 1-based index just before the k-th one: take index position + 1.
        var index = position + 1
        while index < tree.count {
            tree[index] -= 1
            index += index & -index
        }
        remaining -= 1
        return position
    }
}

extension EntityStore.Storage {
    /// The position (0..<count) of the live entity in `slot`. O(1) without tombstones, when
    /// they form one run, or before the first of them; otherwise O(log n) once the position
    /// map of this layout is built (O(n), once per layout).
    func position(ofSlot slot: Int) -> Int {
        if slot < firstTombstone { return slot }
        let tombstones = slots.count - index.count
        if lastTombstone - firstTombstone + 1 == tombstones { return slot - tombstones }
        let map = positionMap()
        var low = 0, high = map.slots.count
        while low < high {
            let middle = (low + high) / 2
            if map.slots[middle] < slot { low = middle + 1 } else { high = middle }
        }
        if low < map.slots.count, map.slots[low] == slot { return map.base + low }
        // Appended after the map was built: the last slots are live and contiguous.
        return index.count - (slots.count - slot)
    }

    /// Inserts absent entities at their final positions (ascending; a position past the
    /// end appends). O(n − lowest position + k).
    func reinsert(_ placed: [(position: Int, entity: Entity)]) {
        compactIfNeeded()
        let low = Swift.min(placed[0].position, slots.count)
        var tail: [Entity?] = []
        tail.reserveCapacity(slots.count - low + placed.count)
        var old = low
        var next = 0
        while old < slots.count || next < placed.count {
            if next < placed.count, old >= slots.count || placed[next].position <= low + tail.count {
                tail.append(placed[next].entity)
                next += 1
            } else {
                tail.append(slots[old])
                old += 1
            }
        }
        slots.replaceSubrange(low..., with: tail)
        for slot in low..<slots.count {
            index[slots[slot].unsafelyUnwrapped.id] = slot
        }
    }
}
