/// What an entity-store slot does on every step, on the state's raw address: a non-generic
/// base class, so that the layout's loops call it without generic metadata, and through an
/// unretained reference (an existential array element is retained and released around
/// each call made on it: about 45 instructions a call).
class StoreStepRecorder {
    /// Starts the step: installs a capture in the slot's store (until ``endStore(_:)``),
    /// which may record into `spare` (a patch of a step that left the history).
    func beginStore(_ state: UnsafeMutableRawPointer, retaining: Bool, spare: consuming UndoStorePatch?) {
        preconditionFailure("StoreStepRecorder: beginStore is overridden by each slot")
    }
    /// Ends the step: its patch; `nil` if the store did not change.
    func endStore(_ state: UnsafeMutableRawPointer) -> UndoStorePatch? {
        preconditionFailure("StoreStepRecorder: endStore is overridden by each slot")
    }
}

/// An entity store of the state, by key path (``TypedStoreSlot``): records steps, and
/// applies, merges and trims their patches.
protocol StoreSlot<State>: StoreStepRecorder {
    associatedtype State
    func apply(_ patch: UndoStorePatch, to state: inout State)
    func merge(_ newer: UndoStorePatch, into older: UndoStorePatch) -> UndoStorePatch
    func removedIDs(in patch: UndoStorePatch) -> Any?
    /// `patch` without the ids `ids`; `nil` when nothing is left of it.
    func forget(_ ids: Any, in patch: UndoStorePatch) -> UndoStorePatch?
}

final class TypedStoreSlot<State, Entity: Identifiable & Equatable & Sendable>: StoreStepRecorder, StoreSlot where Entity.ID: Sendable {
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

    func apply(_ patch: UndoStorePatch, to state: inout State) {
        access.modify(&state) { $0.applyUndoPatch(unsafeDowncast(patch, to: Box.self).patch) }
    }

    func merge(_ newer: UndoStorePatch, into older: UndoStorePatch) -> UndoStorePatch {
        var merged = unsafeDowncast(older, to: Box.self).patch
        merged.append(unsafeDowncast(newer, to: Box.self).patch)
        return Box(merged)
    }

    func removedIDs(in patch: UndoStorePatch) -> Any? {
        var removed = Set<Entity.ID>()
        for step in unsafeDowncast(patch, to: Box.self).patch.steps {
            if case .removed(let entity, _) = step { removed.insert(entity.id) }
        }
        return removed.isEmpty ? nil : removed
    }

    func forget(_ ids: Any, in patch: UndoStorePatch) -> UndoStorePatch? {
        var kept = unsafeDowncast(patch, to: Box.self).patch
        kept.forget(ids as! Set<Entity.ID>)
        return kept.isEmpty ? nil : Box(kept)
    }
}

/// ``EntityStore`` types, which ``UndoLayout`` records by patches.
protocol UndoRecordingStore {
    /// `access` is a `FieldAccess<State, Self>`.
    static func undoSlot<State>(_ access: Any, in: State.Type) -> any StoreSlot<State>
}

extension EntityStore: UndoRecordingStore {
    static func undoSlot<State>(_ access: Any, in: State.Type) -> any StoreSlot<State> {
        TypedStoreSlot(access as! FieldAccess<State, EntityStore<Entity>>)
    }
}
