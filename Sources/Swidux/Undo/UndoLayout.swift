// `@_spi(Reflection)` gives `_forEachFieldWithKeyPath(of:options:body:)`, the standard
// library's enumeration of a struct's stored properties as key paths (writable for `var`
// properties). It compiles without warnings in Swift 6 language mode with SwiftPM; being
// SPI, it could change in a future toolchain: everything using it is in this file, and a
// state it cannot decompose falls back to the snapshot mode.
//
// Never append those key paths (`appending(path:)`): on Swift 6.3.1 appending one reads
// past its buffer (valgrind: an invalid read in `_appendingKeyPaths`), which corrupted the
// heap of concurrent tests. Nested fields are reached by applying the key paths one after
// the other (`FieldAccess`), which is clean.
@_spi(Reflection) import Swift
import Foundation

/// How a ``Store``'s state is split for undo by patches: its entity stores (each records the
/// previous values of exactly the ids an action changed) and its other fields (each kept
/// whole when an action changed it).
///
/// The state is decomposed when it is a struct whose stored properties are all `var`:
/// every ``EntityStore`` property is a store slot; a nested struct that contains entity
/// stores (`state.data.items`) is decomposed the same way, down to a few levels; every
/// other property is a field. A state that is not a struct (or a nested struct with a `let`
/// property, or entity stores inside an array or an enum) is kept whole instead: the
/// snapshot mode, where a step keeps its previous value entire.
///
/// Not actor-isolated, and not `Sendable`: the store's box owns it and uses it on the main
/// actor only (nonisolated, its per-step calls pay no executor check).
final class UndoLayout<State> {
    let stores: [StoreSlot<State>]
    let fields: [FieldSlot<State>]
    /// The same slots as their non-generic bases, unretained (`stores` and `fields` hold
    /// them): the per-step loops call these without a metadata lookup (indexing an array of
    /// a generic class type costs one per element here) and without retaining each slot.
    private let storeRecorders: [Unmanaged<SlotRecorder>]
    private let fieldRecorders: [Unmanaged<SlotRecorder>]
    /// Per store slot, the patch of a step that left the history, which the slot's next
    /// step reuses (see ``recycle(_:)``). Unchecked: one step at a time, never while
    /// another access is open.
    @exclusivity(unchecked) private var spares: [UndoStorePatch?]

    init(for state: State) {
        var stores: [StoreSlot<State>] = []
        var fields: [FieldSlot<State>] = []
        if let leaves = Self.leaves(of: state, at: .root, depth: 0), leaves.contains(where: \.isStore) {
            for leaf in leaves {
                switch leaf {
                case .store(let slot): stores.append(slot)
                case .field(let slot): fields.append(slot)
                }
            }
        } else {
            fields = [TypedFieldSlot(.root)]
        }
        self.stores = stores
        self.fields = fields
        storeRecorders = stores.map { Unmanaged.passUnretained($0) }
        spares = Array(repeating: nil, count: stores.count)
        fieldRecorders = fields.map { Unmanaged.passUnretained($0) }
    }

    /// `true` when the whole state is one field (snapshot mode).
    var isSnapshotMode: Bool { stores.isEmpty }

    enum Leaf {
        case store(StoreSlot<State>)
        case field(FieldSlot<State>)
        var isStore: Bool { if case .store = self { true } else { false } }
    }

    /// The leaves of a struct value, or `nil` if it cannot be decomposed (not a struct, or a
    /// property that is not writable).
    private static func leaves<Root>(of value: Root, at prefix: FieldAccess<State, Root>, depth: Int) -> [Leaf]? {
        guard Mirror(reflecting: value).displayStyle == .struct else { return nil }
        var children: [PartialKeyPath<Root>] = []
        let enumerated = _forEachFieldWithKeyPath(of: Root.self, options: []) { _, keyPath in
            children.append(keyPath)
            return true
        }
        guard enumerated else { return nil }
        var result: [Leaf] = []
        for child in children {
            func visit<Value>(_: Value.Type) -> Bool {
                guard let writable = child as? WritableKeyPath<Root, Value> else { return false }
                let path = prefix.appending(writable)
                if let store = Value.self as? any UndoRecordingStore.Type {
                    result.append(.store(store.undoSlot(path, in: State.self)))
                } else if depth < 3, let nested = leaves(of: value[keyPath: writable], at: path, depth: depth + 1),
                          nested.contains(where: \.isStore) {
                    result += nested
                } else {
                    result.append(.field(TypedFieldSlot(path)))
                }
                return true
            }
            guard _openExistential(type(of: child).valueType, do: visit) else { return nil }
        }
        return result
    }

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
            storeRecorders[index]._withUnsafeGuaranteedRef { $0.beginStore(raw, retaining: retaining, spare: spare.take()) }
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
            patch.fields.append(index, fieldRecorders[index]._withUnsafeGuaranteedRef { $0.end(raw) })
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

    /// Drops the ids of `removed` (from ``removedIDs(in:)``) from `patch`.
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
