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

/// One undo or redo step: per entity store slot, its `EntityUndoPatch` (boxed); per field
/// slot, its previous value.
struct StatePatch {
    var stores = SlotValues<UndoStorePatch>()
    var fields = SlotValues<Any>()
    var isEmpty: Bool { stores.isEmpty && fields.isEmpty }
}

/// Values by slot index. A step changes few slots, most often one: the first value is kept
/// inline and the others in an array (a dictionary would allocate a hash table per step, and
/// free it when the step leaves the history).
struct SlotValues<Value>: Sequence {
    typealias Element = (index: Int, value: Value)
    /// The first value's slot, or -1 when there is none. Values are held as optionals (never
    /// `nil` once held): `append` takes what a slot gives, a `Value?`, without unwrapping it.
    private var firstIndex = -1
    private var firstValue: Value? = nil
    /// `nil` until a second value comes (an empty array costs a release when a step is
    /// destroyed, and a retain when one is made).
    private var storedOthers: [(index: Int, value: Value?)]?
    private var others: [(index: Int, value: Value?)] {
        get { storedOthers ?? [] }
        _modify {
            if storedOthers == nil { storedOthers = [] }
            yield &storedOthers!
        }
    }
    private var hasOthers: Bool { storedOthers.map { !$0.isEmpty } ?? false }

    var isEmpty: Bool { firstIndex < 0 }

    /// The value of slot `index`, if any; setting `nil` removes it.
    subscript(index: Int) -> Value? {
        get {
            if firstIndex < 0 { return nil }
            if firstIndex == index { return firstValue }
            for position in others.indices where others[position].index == index { return others[position].value }
            return nil
        }
        set {
            if firstIndex == index, index >= 0 {
                if let newValue {
                    firstValue = newValue
                } else if !hasOthers {
                    firstIndex = -1
                    firstValue = nil
                } else {
                    let next = others.removeFirst()
                    firstIndex = next.index
                    firstValue = next.value
                }
                return
            }
            if firstIndex >= 0, let position = others.firstIndex(where: { $0.index == index }) {
                if let newValue { others[position].value = newValue } else { others.remove(at: position) }
                return
            }
            guard let newValue else { return }
            if firstIndex < 0 {
                firstIndex = index
                firstValue = newValue
            } else {
                others.append((index, newValue))
            }
        }
    }

    /// Adds the value of slot `index`, which has none and is above every slot that has one;
    /// `nil` adds nothing.
    mutating func append(_ index: Int, _ value: consuming Value?) {
        guard value != nil else { return }
        if firstIndex < 0 {
            firstIndex = index
            firstValue = value
        } else {
            others.append((index, value))
        }
    }

    /// Removes and returns the first value (moved out, not copied), if any.
    mutating func popFirst() -> Element? {
        guard firstIndex >= 0 else { return nil }
        let index = firstIndex
        let value = firstValue.take().unsafelyUnwrapped
        if !hasOthers {
            firstIndex = -1
        } else {
            let next = others.removeFirst()
            firstIndex = next.index
            firstValue = next.value
        }
        return (index, value)
    }

    func makeIterator() -> Iterator { Iterator(values: self) }

    struct Iterator: IteratorProtocol {
        let values: SlotValues
        var position = -1
        mutating func next() -> Element? {
            defer { position += 1 }
            if position < 0 { return values.firstIndex < 0 ? nil : (values.firstIndex, values.firstValue.unsafelyUnwrapped) }
            guard position < values.others.count else { return nil }
            return (values.others[position].index, values.others[position].value.unsafelyUnwrapped)
        }
    }
}

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

/// A field of the state other than an entity store, by key path. Its ``SlotRecorder``
/// methods keep the field's value at `begin`, and give it back at `end` if it changed.
class FieldSlot<State>: SlotRecorder {
    func write(_ value: Any, into state: inout State) { fatalError("abstract") }
}

final class TypedFieldSlot<State, Value>: FieldSlot<State> {
    let access: FieldAccess<State, Value>
    /// How the value is compared, decided at first use: `equals` (`==`) when it is
    /// `Equatable` and holds no entity store, else a ``ChangeDetector`` snapshot. Flags and a
    /// plain closure, not optionals of closures: reading a closure out of an optional costs
    /// a reabstraction thunk (an allocation) per read here.
    private var isDecided = false
    private var comparesWithEquals = false
    private var equals: (UnsafePointer<Value>, UnsafePointer<Value>) -> Bool = { _, _ in false }
    private var strategy: ChangeDetector.Strategy = .equatable
    /// The value kept by `keep` through a pointer (a stored property compared with `==`).
    private let kept: UnsafeMutablePointer<Value>
    /// Its bytes as they were in the state: unchanged bytes are an unchanged value (the kept
    /// copy holds every reference they contain, so none was mutated in place or reused), and
    /// comparing them costs no `==` (a copy's padding may differ: the state's own bytes are kept).
    private let keptBytes: UnsafeMutableRawPointer
    private let size: Int
    /// The field's byte offset in the state (see ``FieldAccess/offset``), else -1.
    private let offset: Int
    private var holdsKept = false
    /// The value kept otherwise (boxed), and what ``ChangeDetector`` remembers of it.
    private var keptValue: Any?
    private var keptSnapshot: ChangeDetector.Snapshot?

    init(_ access: FieldAccess<State, Value>) {
        self.access = access
        offset = access.offset
        size = MemoryLayout<Value>.size
        kept = .allocate(capacity: 1)
        keptBytes = .allocate(byteCount: Swift.max(size, 1), alignment: 8)
    }

    deinit {
        if holdsKept { kept.deinitialize(count: 1) }
        kept.deallocate()
        keptBytes.deallocate()
    }

    override func begin(_ raw: UnsafeMutableRawPointer, retaining: Bool) {
        let state = raw.assumingMemoryBound(to: State.self)
        if !isDecided {
            let value = access.get(state.pointee)
            strategy = ChangeDetector.strategy(for: value)
            if strategy == .equatable, let equality = Self.equality(Value.self) {
                equals = equality
                comparesWithEquals = true
            }
            isDecided = true
        }
        if offset >= 0, comparesWithEquals {
            let field = raw + offset
            keptBytes.copyMemory(from: field, byteCount: size)
            kept.initialize(to: field.assumingMemoryBound(to: Value.self).pointee)
            holdsKept = true
            return
        }
        let value = access.get(state.pointee)
        keptValue = value
        keptSnapshot = comparesWithEquals ? nil : ChangeDetector.snapshot(value, strategy: strategy)
    }

    override func end(_ raw: UnsafeMutableRawPointer) -> Any? {
        let state = raw.assumingMemoryBound(to: State.self)
        if holdsKept {
            holdsKept = false
            let field = raw + offset
            let now = field.assumingMemoryBound(to: Value.self)
            if Self.bytesEqual(keptBytes, field, count: size) || equals(kept, now) {
                kept.deinitialize(count: 1)
                return nil
            }
            return kept.move()
        }
        guard let value = keptValue else { return nil }
        let snapshot = keptSnapshot
        keptValue = nil
        keptSnapshot = nil
        var now = access.get(state.pointee)
        if comparesWithEquals {
            var before = value as! Value
            return equals(&before, &now) ? nil : value
        }
        guard let snapshot else { return value }
        return ChangeDetector.hasChanged(snapshot, to: now) ? value : nil
    }

    override func write(_ value: Any, into state: inout State) {
        access.modify(&state) { $0 = value as! Value }
    }

    private static func equality(_ type: Value.Type) -> ((UnsafePointer<Value>, UnsafePointer<Value>) -> Bool)? {
        guard let equatable = type as? any Equatable.Type else { return nil }
        func make<E: Equatable>(_: E.Type) -> (UnsafePointer<Value>, UnsafePointer<Value>) -> Bool {
            // `E` is `Value` itself: the values are read as what they are (no dynamic cast).
            { lhs, rhs in
                lhs.withMemoryRebound(to: E.self, capacity: 1) { lhs in
                    rhs.withMemoryRebound(to: E.self, capacity: 1) { rhs in lhs.pointee == rhs.pointee }
                }
            }
        }
        return make(equatable)
    }

    /// Byte-wise equality of `count` bytes.
    private static func bytesEqual(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(lhs, rhs, count) == 0
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

/// Reads and mutates (in place) a field of the state, possibly nested, by applying the
/// key paths of the path one after the other.
struct FieldAccess<State, Value> {
    private let getter: (State) -> Value
    private let modifier: (inout State, (inout Value) -> Void) -> Void
    /// A property of the state itself (one key path, never an appended one): applied directly.
    private let direct: WritableKeyPath<State, Value>?
    private let isRoot: Bool
    /// The field's byte offset in the state when it is the state itself or one of its stored
    /// properties (`MemoryLayout.offset(of:)`), else -1.
    let offset: Int

    private init(getter: @escaping (State) -> Value, modifier: @escaping (inout State, (inout Value) -> Void) -> Void,
                 direct: WritableKeyPath<State, Value>?, isRoot: Bool, offset: Int) {
        self.getter = getter
        self.modifier = modifier
        self.direct = direct
        self.isRoot = isRoot
        self.offset = offset
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
                                             direct: direct, isRoot: false, offset: MemoryLayout<State>.offset(of: direct) ?? -1)
        }
        let parent = self
        return FieldAccess<State, Child>(
            getter: { parent.get($0)[keyPath: keyPath] },
            modifier: { state, body in parent.modify(&state) { body(&$0[keyPath: keyPath]) } },
            direct: nil, isRoot: false, offset: -1
        )
    }
}

extension FieldAccess where Value == State {
    /// The whole state.
    static var root: FieldAccess {
        FieldAccess(getter: { $0 }, modifier: { state, body in body(&state) }, direct: nil, isRoot: true, offset: 0)
    }
}
