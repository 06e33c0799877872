/// What a slot does on every step, on the state's raw address: a non-generic base, so that
/// the layout's loops call it without generic metadata.
class SlotRecorder {
    // Abstract: see TypedStoreSlot and TypedFieldSlot.
    /// Starts the step of a field slot: it keeps the field's value (until ``end(_:)``).
    func begin(_ state: UnsafeMutableRawPointer, retaining: Bool) { fatalError("abstract") }
    /// Starts the step of a store slot: it installs a capture in its store (until
    /// ``endStore(_:)``), which may record into `spare` (a patch of a step that left the history).
    func beginStore(_ state: UnsafeMutableRawPointer, retaining: Bool, spare: consuming UndoStorePatch?) {
        fatalError("abstract")
    }
    /// Ends the step of a field slot: its previous value; `nil` if it did not change.
    func end(_ state: UnsafeMutableRawPointer) -> Any? { fatalError("abstract") }
    /// Ends the step of a store slot: its patch; `nil` if it did not change.
    func endStore(_ state: UnsafeMutableRawPointer) -> UndoStorePatch? { fatalError("abstract") }
}

/// An entity store of the state, by key path.
class StoreSlot<State>: SlotRecorder {
    // Abstract: see TypedStoreSlot.
    func apply(_ patch: UndoStorePatch, to state: inout State) { fatalError("abstract") }
    func merge(_ newer: UndoStorePatch, into older: UndoStorePatch) -> UndoStorePatch { fatalError("abstract") }
    func removedIDs(in patch: UndoStorePatch) -> Any? { fatalError("abstract") }
    func forget(_ ids: Any, in patch: UndoStorePatch) -> UndoStorePatch { fatalError("abstract") }
}

final class TypedStoreSlot<State, Entity: Identifiable & Equatable & Sendable>: StoreSlot<State> where Entity.ID: Sendable {
    typealias Patch = EntityUndoPatch<Entity>
    typealias Box = EntityUndoPatchBox<Entity>
    let access: FieldAccess<State, EntityStore<Entity>>
    /// How a capture is made, specialized for the entity type (learnt from the first capture
    /// that recorded a mutation; see `EntityUndoCapture.finish`).
    private var makeCapture: ((EntityStore<Entity>.Storage?, ChangeFingerprint, Bool) -> EntityUndoCapture<Entity>)?
    /// The capture of the step being recorded (until the slot records through `recorder`).
    private var capture: EntityUndoCapture<Entity>?
    /// The store's byte offset in the state (a stored property of the state itself), else -1.
    private let offset: Int
    /// Begins and ends steps in the store at an address, specialized for the entity type
    /// (made by the first capture that recorded a mutation, for a store at an offset): no
    /// key-path access, no metadata lookup, the capture reused from step to step.
    private var recorder: EntityUndoRecorder?
    /// The same, called on every step without a retain (`recorder` holds it; set once).
    private var unretainedRecorder: Unmanaged<EntityUndoRecorder>?

    init(_ access: FieldAccess<State, EntityStore<Entity>>) {
        self.access = access
        offset = access.offset
    }

    override func beginStore(_ state: UnsafeMutableRawPointer, retaining: Bool, spare: consuming UndoStorePatch?) {
        if let recorder = unretainedRecorder {
            // Moved in (a captured value would be a copy: the capture would not find it unique).
            var moved = consume spare
            return recorder._withUnsafeGuaranteedRef { $0.begin(state + offset, retaining, moved.take()) }
        }
        let state = state.assumingMemoryBound(to: State.self)
        let make = makeCapture
        access.modify(&state.pointee) { capture = $0.beginUndoCapture(retaining: retaining, make: make) }
    }

    override func endStore(_ state: UnsafeMutableRawPointer) -> UndoStorePatch? {
        if let recorder = unretainedRecorder { return recorder._withUnsafeGuaranteedRef { $0.end(state + offset) } }
        guard let capture else { preconditionFailure("UndoLayout: a store slot ended without beginning") }
        if makeCapture == nil { makeCapture = capture.makeNext }
        var patch: UndoStorePatch?
        access.modify(&state.assumingMemoryBound(to: State.self).pointee) { patch = $0.endUndoCaptureBoxed(capture) }
        if offset >= 0, let makeRecorder = capture.makeRecorder {
            let made = makeRecorder(capture)
            recorder = made
            unretainedRecorder = Unmanaged.passUnretained(made)
            self.capture = nil
        }
        return patch
    }

    // A box is never mutated once in the history (these make new ones): only a box that
    // left it is reused, and only when nothing else holds it.

    override func apply(_ patch: UndoStorePatch, to state: inout State) {
        access.modify(&state) { $0.applyUndoPatch(unsafeDowncast(patch, to: Box.self).patch) }
    }

    override func merge(_ newer: UndoStorePatch, into older: UndoStorePatch) -> UndoStorePatch {
        var merged = unsafeDowncast(older, to: Box.self).patch
        merged.append(unsafeDowncast(newer, to: Box.self).patch)
        return Box(merged)
    }

    override func removedIDs(in patch: UndoStorePatch) -> Any? {
        var removed = Set<Entity.ID>()
        for step in unsafeDowncast(patch, to: Box.self).patch.steps {
            if case .removed(let entity, _) = step { removed.insert(entity.id) }
        }
        return removed.isEmpty ? nil : removed
    }

    override func forget(_ ids: Any, in patch: UndoStorePatch) -> UndoStorePatch {
        var kept = unsafeDowncast(patch, to: Box.self).patch
        kept.forget(ids as! Set<Entity.ID>)
        return Box(kept)
    }
}

/// ``EntityStore`` types, which ``UndoLayout`` records by patches.
protocol UndoRecordingStore {
    /// `access` is a `FieldAccess<State, Self>`.
    static func undoSlot<State>(_ access: Any, in: State.Type) -> StoreSlot<State>
}

extension EntityStore: UndoRecordingStore {
    static func undoSlot<State>(_ access: Any, in: State.Type) -> StoreSlot<State> {
        TypedStoreSlot(access as! FieldAccess<State, EntityStore<Entity>>)
    }
}
