import Foundation

/// How a ``Store``'s state is split for undo by patches: the parts the app named as
/// undoable (``UndoMiddleware/init(maxDepth:recording:_:)``). Each named ``EntityStore`` is
/// a store slot (it records the previous values of exactly the ids an action changed); each
/// other named part is a field slot (kept whole when an action changed it). Parts not named
/// are never recorded nor restored. With no part given, the whole state is one field: the
/// snapshot mode, where a step keeps its previous value entire. (A store whose app named no
/// part gives its persisted entity stores; only a store without persistence gives none.)
///
/// Public Swift only: the app names the parts (no reflection can list a struct's stored
/// properties as key paths with public API). A named part is reached through its byte
/// offset in the state when it is a chain of stored properties (`MemoryLayout.offset(of:)`),
/// else through its key path.
///
/// Not actor-isolated, and not `Sendable`: the store's box owns it and uses it on the main
/// actor only (nonisolated, its per-step calls pay no executor check).
final class UndoLayout<State> {
    let stores: [any StoreSlot<State>]
    let fields: [any FieldSlot<State>]
    /// The same slots as their non-generic step classes, unretained (`stores` and `fields`
    /// hold them): the per-step loops call these without a metadata lookup (indexing an
    /// array of a generic type costs one per element here) and without a retain and a
    /// release per call (which an existential element costs).
    private let storeRecorders: [Unmanaged<StoreStepRecorder>]
    private let fieldRecorders: [Unmanaged<FieldStepRecorder>]
    /// Per store slot, the patch of a step that left the history, which the slot's next
    /// step reuses (see ``recycle(_:)``). Unchecked: one step at a time, never while
    /// another access is open.
    @exclusivity(unchecked) private var spares: [UndoStorePatch?]

    /// The layout of the parts `paths` names; the whole state when there are none.
    init(recording paths: [UndoRecordedPath<State>]) {
        var stores: [any StoreSlot<State>] = []
        var fields: [any FieldSlot<State>] = []
        UndoRecordedPath.validate(paths)
        for path in paths {
            switch path.makeSlot() {
            case .store(let slot): stores.append(slot)
            case .field(let slot): fields.append(slot)
            }
        }
        if paths.isEmpty { fields = [TypedFieldSlot(.root)] }
        self.stores = stores
        self.fields = fields
        isSnapshotMode = paths.isEmpty
        storeRecorders = stores.map { Unmanaged.passUnretained($0 as StoreStepRecorder) }
        spares = Array(repeating: nil, count: stores.count)
        fieldRecorders = fields.map { Unmanaged.passUnretained($0 as FieldStepRecorder) }
    }

    /// `true` when the whole state is one field (snapshot mode: no part named).
    let isSnapshotMode: Bool

    // MARK: Recording

    /// A step being recorded. What it keeps (each store's capture, each field's value before)
    /// is in the layout's buffers, reused from step to step: one step is recorded at a time
    /// (the store never nests them).
    struct Recording {}

    private var isRecording = false

    /// Starts recording a step in the state at `state`: installs a capture in each entity
    /// store, keeps each field (each slot holds what it needs until ``end(_:_:)``).
    /// O(stores + fields).
    ///
    /// Index loops throughout: `for … in`, `enumerated()` and `indices` cost generic metadata
    /// lookups per loop and per element here, where nothing is specialized for the state's type.
    func begin(_ state: UnsafeMutablePointer<State>, retaining: Bool = true) -> Recording {
        precondition(!isRecording, "UndoLayout: undo steps cannot nest")
        isRecording = true
        let raw = UnsafeMutableRawPointer(state)
        for index in 0..<storeRecorders.count {
            var spare = spares[index].take()
            storeRecorders[index]._withUnsafeGuaranteedRef {
                $0.beginStore(raw, retaining: retaining, spare: spare.take())
            }
        }
        for index in 0..<fieldRecorders.count {
            fieldRecorders[index]._withUnsafeGuaranteedRef { $0.begin(raw, retaining: retaining) }
        }
        return Recording()
    }

    /// Ends recording: the patch of what changed (empty if nothing did).
    func end(_ recording: Recording, _ state: UnsafeMutablePointer<State>) -> StatePatch {
        var patch = StatePatch()
        let raw = UnsafeMutableRawPointer(state)
        // The optionals are appended as they are: unwrapping one first copies the value (and
        // destroying the original goes through generic value witnesses).
        for index in 0..<storeRecorders.count {
            patch.stores.append(index, storeRecorders[index]._withUnsafeGuaranteedRef { $0.endStore(raw) })
        }
        for index in 0..<fieldRecorders.count {
            fieldRecorders[index]._withUnsafeGuaranteedRef { $0.end(raw, into: &patch.fields, index: index) }
        }
        isRecording = false
        return patch
    }

    /// Applies `patch` (an undo or redo step) to the current state and returns its inverse
    /// (what it changed, as it was before). Entity stores record what it changes, for
    /// persistence; `restoreStores` makes a field written whole (snapshot mode) record the
    /// difference in the entity stores it contains.
    func apply(_ patch: StatePatch, to state: inout State, restoreStores: (inout State, State) -> Void) -> StatePatch {
        let recording = withUnsafeMutablePointer(to: &state) { begin($0) }
        if !patch.fields.isEmpty {
            var next = state
            for (index, value) in patch.fields { fields[index].write(value, into: &next) }
            restoreStores(&next, state)
            state = next
        }
        for (index, storePatch) in patch.stores { stores[index].apply(storePatch, to: &state) }
        return withUnsafeMutablePointer(to: &state) { end(recording, $0) }
    }

    /// Keeps the entity-store patches of `patch` (a step dropped from the history) for their
    /// slots' next steps, which record into them: a step in a full history then allocates
    /// nothing and frees nothing (and the dropped step is not destroyed through generic value
    /// witnesses). O(stores and fields of the step).
    func recycle(_ patch: inout StatePatch) {
        while let (index, storePatch) = patch.stores.popFirst() { spares[index] = consume storePatch }
    }

    /// Folds `newer` into `older` (coalescing): the first previous value of each field
    /// and entity wins.
    func merge(_ newer: StatePatch, into older: inout StatePatch) {
        for (index, value) in newer.fields where older.fields[index] == nil { older.fields[index] = value }
        for (index, storePatch) in newer.stores {
            if let existing = older.stores[index] {
                older.stores[index] = stores[index].merge(storePatch, into: existing)
            } else {
                older.stores[index] = storePatch
            }
        }
    }

    /// The ids each store lost in `patch` (present before, absent after), by store slot.
    func removedIDs(in patch: StatePatch) -> [Int: Any] {
        var removed: [Int: Any] = [:]
        for (index, storePatch) in patch.stores {
            if let ids = stores[index].removedIDs(in: storePatch) { removed[index] = ids }
        }
        return removed
    }

    /// Drops the ids of `removed` (from ``removedIDs(in:)``) from `patch` (which is left
    /// empty when it changed nothing else).
    func forget(_ removed: [Int: Any], in patch: inout StatePatch) {
        for (index, ids) in removed {
            guard let storePatch = patch.stores[index] else { continue }
            patch.stores[index] = stores[index].forget(ids, in: storePatch)
        }
    }
}

// The per-step entry points of a layout the store holds, called without retaining it.
// Free functions, nonisolated: a static method would look the generic class's metadata up
// on every call, and the closure of `_withUnsafeGuaranteedRef` (a standard library function)
// would check its executor on every call if it were isolated to the main actor.

func undoLayoutBegin<State>(_ layout: Unmanaged<UndoLayout<State>>, _ state: UnsafeMutablePointer<State>) -> UndoLayout<State>.Recording {
    layout._withUnsafeGuaranteedRef { $0.begin(state) }
}

func undoLayoutEnd<State>(
    _ layout: Unmanaged<UndoLayout<State>>, _ recording: UndoLayout<State>.Recording, _ state: UnsafeMutablePointer<State>
) -> StatePatch {
    layout._withUnsafeGuaranteedRef { $0.end(recording, state) }
}

func undoLayoutRecycle<State>(_ layout: Unmanaged<UndoLayout<State>>, _ patch: inout StatePatch) {
    layout._withUnsafeGuaranteedRef { $0.recycle(&patch) }
}

func undoLayoutMerge<State>(_ layout: Unmanaged<UndoLayout<State>>, _ newer: StatePatch, into older: inout StatePatch) {
    layout._withUnsafeGuaranteedRef { $0.merge(newer, into: &older) }
}

