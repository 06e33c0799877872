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
@MainActor
final class UndoLayout<State> {
    let stores: [StoreSlot<State>]
    let fields: [FieldSlot<State>]

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

    private var captures: [AnyObject] = []
    private var fieldValues: [Any] = []
    private var fieldSnapshots: [ChangeDetector.Snapshot?] = []
    private var isRecording = false

    /// Starts recording a step: installs a capture in each entity store, keeps each field.
    /// O(stores + fields).
    ///
    /// Index loops throughout: `for … in`, `enumerated()` and `indices` cost generic metadata
    /// lookups per loop and per element here, where nothing is specialized for the state's type.
    func begin(_ state: inout State, retaining: Bool = true) -> Recording {
        precondition(!isRecording, "UndoLayout: undo steps cannot nest")
        isRecording = true
        for index in 0..<stores.count { captures.append(stores[index].begin(&state, retaining: retaining)) }
        for index in 0..<fields.count {
            let (value, snapshot) = fields[index].keep(state)
            fieldValues.append(value)
            fieldSnapshots.append(snapshot)
        }
        return Recording()
    }

    /// Ends recording: the patch of what changed (empty if nothing did).
    func end(_ recording: Recording, _ state: inout State) -> StatePatch {
        var patch = StatePatch()
        for index in 0..<stores.count {
            if let storePatch = stores[index].end(captures[index], &state) { patch.stores[index] = storePatch }
        }
        for index in 0..<fields.count
        where fields[index].hasChanged(from: fieldValues[index], fieldSnapshots[index], in: state) {
            patch.fields[index] = fieldValues[index]
        }
        captures.removeAll(keepingCapacity: true)
        fieldValues.removeAll(keepingCapacity: true)
        fieldSnapshots.removeAll(keepingCapacity: true)
        isRecording = false
        return patch
    }

    /// Applies `patch` (an undo or redo step) to the current state and returns its inverse
    /// (what it changed, as it was before). Entity stores record what it changes, for
    /// persistence; `restoreStores` makes a field written whole (snapshot mode) record the
    /// difference in the entity stores it contains.
    func apply(_ patch: StatePatch, to state: inout State, restoreStores: (inout State, State) -> Void) -> StatePatch {
        let recording = begin(&state)
        if !patch.fields.isEmpty {
            var next = state
            for (index, value) in patch.fields { fields[index].write(value, into: &next) }
            restoreStores(&next, state)
            state = next
        }
        for (index, storePatch) in patch.stores { stores[index].apply(storePatch, to: &state) }
        return end(recording, &state)
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

/// One undo or redo step: per entity store slot, its `EntityUndoPatch`; per field slot,
/// its previous value.
struct StatePatch {
    var stores: [Int: Any] = [:]
    var fields: [Int: Any] = [:]
    var isEmpty: Bool { stores.isEmpty && fields.isEmpty }
}

/// An entity store of the state, by key path.
@MainActor
class StoreSlot<State> {
    // Abstract: see TypedStoreSlot.
    func begin(_ state: inout State, retaining: Bool) -> AnyObject { fatalError("abstract") }
    func end(_ capture: AnyObject, _ state: inout State) -> Any? { fatalError("abstract") }
    func apply(_ patch: Any, to state: inout State) { fatalError("abstract") }
    func merge(_ newer: Any, into older: Any) -> Any { fatalError("abstract") }
    func removedIDs(in patch: Any) -> Any? { fatalError("abstract") }
    func forget(_ ids: Any, in patch: Any) -> Any { fatalError("abstract") }
}

@MainActor
final class TypedStoreSlot<State, Entity: Identifiable & Equatable & Sendable>: StoreSlot<State> where Entity.ID: Sendable {
    typealias Patch = EntityUndoPatch<Entity>
    let access: FieldAccess<State, EntityStore<Entity>>
    /// How a capture is made, specialized for the entity type (learnt from the first capture
    /// that recorded a mutation; see `EntityUndoCapture.finish`).
    private var makeCapture: ((EntityStore<Entity>.Storage?, ChangeFingerprint, Bool) -> EntityUndoCapture<Entity>)?

    init(_ access: FieldAccess<State, EntityStore<Entity>>) {
        self.access = access
    }

    override func begin(_ state: inout State, retaining: Bool) -> AnyObject {
        var capture: EntityUndoCapture<Entity>!
        let make = makeCapture
        access.modify(&state) { capture = $0.beginUndoCapture(retaining: retaining, make: make) }
        return capture
    }

    override func end(_ capture: AnyObject, _ state: inout State) -> Any? {
        let capture = unsafeDowncast(capture, to: EntityUndoCapture<Entity>.self)
        if makeCapture == nil { makeCapture = capture.makeNext }
        var patch: Any?
        access.modify(&state) { patch = $0.endUndoCaptureBoxed(capture) }
        return patch
    }

    override func apply(_ patch: Any, to state: inout State) {
        access.modify(&state) { $0.applyUndoPatch(patch as! Patch) }
    }

    override func merge(_ newer: Any, into older: Any) -> Any {
        var merged = older as! Patch
        merged.append(newer as! Patch)
        return merged
    }

    override func removedIDs(in patch: Any) -> Any? {
        let patch = patch as! Patch
        var removed = Set<Entity.ID>()
        for step in patch.steps {
            if case .removed(let entity, _) = step { removed.insert(entity.id) }
        }
        return removed.isEmpty ? nil : removed
    }

    override func forget(_ ids: Any, in patch: Any) -> Any {
        var patch = patch as! Patch
        patch.forget(ids as! Set<Entity.ID>)
        return patch
    }
}

/// A field of the state other than an entity store, by key path.
@MainActor
class FieldSlot<State> {
    /// The value now and, for a value that is not compared with `==`, what
    /// ``ChangeDetector`` remembers of it.
    func keep(_ state: State) -> (Any, ChangeDetector.Snapshot?) { fatalError("abstract") }
    func hasChanged(from value: Any, _ snapshot: ChangeDetector.Snapshot?, in state: State) -> Bool { fatalError("abstract") }
    func write(_ value: Any, into state: inout State) { fatalError("abstract") }
}

@MainActor
final class TypedFieldSlot<State, Value>: FieldSlot<State> {
    let access: FieldAccess<State, Value>
    /// `==` when the value is `Equatable` and holds no entity store; decided at first use.
    private var equals: ((Value, Value) -> Bool)??
    private var strategy: ChangeDetector.Strategy?

    init(_ access: FieldAccess<State, Value>) {
        self.access = access
    }

    override func keep(_ state: State) -> (Any, ChangeDetector.Snapshot?) {
        let value = access.get(state)
        if equals == nil {
            strategy = ChangeDetector.strategy(for: value)
            equals = strategy == .equatable ? Self.equality(Value.self) : .some(nil)
        }
        if equals! != nil { return (value, nil) }
        return (value, ChangeDetector.snapshot(value, strategy: strategy!))
    }

    override func hasChanged(from value: Any, _ snapshot: ChangeDetector.Snapshot?, in state: State) -> Bool {
        let now = access.get(state)
        if let equals = equals ?? nil { return !equals(value as! Value, now) }
        guard let snapshot else { return true }
        return ChangeDetector.hasChanged(snapshot, to: now)
    }

    override func write(_ value: Any, into state: inout State) {
        access.modify(&state) { $0 = value as! Value }
    }

    private static func equality(_ type: Value.Type) -> ((Value, Value) -> Bool)? {
        guard let equatable = type as? any Equatable.Type else { return nil }
        func make<E: Equatable>(_: E.Type) -> (Value, Value) -> Bool {
            { lhs, rhs in (lhs as! E) == (rhs as! E) }
        }
        return make(equatable)
    }
}

/// ``EntityStore`` types, which ``UndoLayout`` records by patches.
protocol UndoRecordingStore {
    /// `access` is a `FieldAccess<State, Self>`.
    @MainActor static func undoSlot<State>(_ access: Any, in: State.Type) -> StoreSlot<State>
}

extension EntityStore: UndoRecordingStore {
    @MainActor static func undoSlot<State>(_ access: Any, in: State.Type) -> StoreSlot<State> {
        TypedStoreSlot(access as! FieldAccess<State, EntityStore<Entity>>)
    }
}

/// Reads and mutates (in place) a field of the state, possibly nested, by applying the
/// key paths of the path one after the other.
struct FieldAccess<State, Value> {
    private let getter: (State) -> Value
    private let modifier: (inout State, (inout Value) -> Void) -> Void
    /// A property of the state itself (one key path, never an appended one): applied directly.
    private let direct: WritableKeyPath<State, Value>?
    private let isRoot: Bool

    private init(getter: @escaping (State) -> Value, modifier: @escaping (inout State, (inout Value) -> Void) -> Void,
                 direct: WritableKeyPath<State, Value>?, isRoot: Bool) {
        self.getter = getter
        self.modifier = modifier
        self.direct = direct
        self.isRoot = isRoot
    }

    func get(_ state: State) -> Value {
        if let direct { return state[keyPath: direct] }
        return getter(state)
    }

    func modify(_ state: inout State, _ body: (inout Value) -> Void) {
        if let direct { return body(&state[keyPath: direct]) }
        modifier(&state, body)
    }

    /// The field `keyPath` of this one.
    func appending<Child>(_ keyPath: WritableKeyPath<Value, Child>) -> FieldAccess<State, Child> {
        if isRoot, let direct = keyPath as? WritableKeyPath<State, Child> {
            return FieldAccess<State, Child>(getter: { $0[keyPath: direct] }, modifier: { state, body in body(&state[keyPath: direct]) },
                                             direct: direct, isRoot: false)
        }
        let parent = self
        return FieldAccess<State, Child>(
            getter: { parent.get($0)[keyPath: keyPath] },
            modifier: { state, body in parent.modify(&state) { body(&$0[keyPath: keyPath]) } },
            direct: nil, isRoot: false
        )
    }
}

extension FieldAccess where Value == State {
    /// The whole state.
    static var root: FieldAccess {
        FieldAccess(getter: { $0 }, modifier: { state, body in body(&state) }, direct: nil, isRoot: true)
    }
}
