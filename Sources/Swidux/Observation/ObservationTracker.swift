import Observation

/// The observation bookkeeping of a root store: which reads are armed, and which of them a
/// state change must notify.
///
/// - A read of a key path (`store.ui`, `store[dynamicMember: \.rows[3]]`, scoped reads) arms
///   a *slice entry* holding a typed change test. After each dispatch the armed entries are
///   compared; one that changed is notified and **disarmed**: like Observation's own
///   `withObservationTracking`, it is armed again only by a new read. Disarmed entries cost
///   nothing per dispatch, and they are swept away when they outnumber the armed ones.
/// - Reads of an ``EntityStore`` slice through ``ObservedEntities`` arm *row entries*
///   (`store.items[id]`) and a *membership entry* (`ids`, `count`, `isEmpty`,
///   `contains`). They are found through the entity store's observation log (the ids a
///   dispatch changed), not by comparison: the cost per dispatch is O(changed ids), whatever
///   the number of rows read. A row entry that fired is removed.
@MainActor
final class ObservationTracker<State>: Observable {
    /// A registrar key: one per armed entry, rooted in a non-generic type (see ``SliceKeys``).
    typealias Key = KeyPath<SliceKeys, Int>
    /// Slices, in the non-generic form the bookkeeping keeps them in (see ``TrackedSlice``).
    typealias Slice = TrackedSlice

    /// The registrar of slices read by key path (`store.ui`, scoped reads).
    let registrar = ObservationRegistrar()
    /// The registrar of entity entries (rows, memberships): a separate one, so that the
    /// many rows a long list has read (each an observation in its registrar's tables) do
    /// not make every notification of a slice look up tables of that size.
    let entryRegistrar = ObservationRegistrar()
    /// Reads the root store's current state; `nil` once the store is gone.
    var currentState: @MainActor () -> State? = { nil }

    init() {}

    // MARK: Registrar keys

    /// The subject of the registrar keys of slices (`\SliceKeys.[slice: n]`).
    let sliceKeys = SliceKeys()
    private var nextSliceToken = 0

    func makeSliceKey() -> KeyPath<SliceKeys, Int> {
        nextSliceToken += 1
        return \SliceKeys.[slice: nextSliceToken]
    }

    private var nextToken = 0
    /// Keys of entries that fired and were removed; after `willSet`, no observer is left on them.
    private var freeKeys: [Key] = []

    func makeKey() -> Key {
        if let key = freeKeys.popLast() { return key }
        nextToken += 1
        return \SliceKeys.[entry: nextToken]
    }

    // MARK: Slices read by key path

    private var slices: [AnyKeyPath: Slice] = [:]
    /// Armed slices whose key path does not start with a known stored property (and
    /// disarmed ones not yet compacted away).
    private var armedSlices: [Slice] = []
    private var ungroupedArmedCount = 0

    /// Gate the groups from this many armed grouped slices on (below it, comparing is cheaper).
    static var gateThreshold: Int { 32 }
    private var groups: [Int: SliceGroup] = [:]
    private var groupList: [SliceGroup] = []
    private var groupedArmedCount = 0
    /// The labels of the state's stored properties (`nil` until needed; empty if the state
    /// is not a struct).
    private var fieldLabels: [String]?
    /// Change tests run by the last dispatch (tests check that dispatch cost does not grow).
    private(set) var lastComparisonCount = 0

    /// The group of the stored property `keyPath` starts with, if it can be told.
    private func group<Value>(for keyPath: KeyPath<State, Value>, _ state: State) -> SliceGroup? {
        if fieldLabels == nil {
            let mirror = Mirror(reflecting: state)
            fieldLabels = mirror.displayStyle == .struct ? mirror.children.map { $0.label ?? "" } : []
        }
        guard let labels = fieldLabels, !labels.isEmpty else { return nil }
        // `\State.rows.<computed …>.title`: the first component names the stored property
        // (computed properties and subscripts print as `<computed …>`: not grouped).
        let text = keyPath.debugDescription
        var rest: Substring?
        for name in [String(describing: State.self), _typeName(State.self, qualified: false), _typeName(State.self, qualified: true)] {
            let prefix = "\\" + name + "."
            if text.hasPrefix(prefix) {
                rest = text.dropFirst(prefix.count)
                break
            }
        }
        guard let rest else { return nil }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !name.isEmpty else { return nil }
        let after = rest.dropFirst(name.count).first
        guard after == nil || after == "." || after == "?" || after == "!" else { return nil }
        guard let field = labels.firstIndex(of: String(name)) else { return nil }
        let group = groups[field] ?? makeGroup(field: field, state)
        guard let group else { return nil }
        // The gate says the property is the same value; a read through a class instance
        // below it may still differ (the object changed in place): such a slice is compared
        // on every dispatch.
        if group.kind != .fingerprint, MemoryLayout<State>.offset(of: keyPath) == nil {
            let path = String(rest.dropFirst(name.count))
            let crosses: Bool
            if let known = crossesReference[path] {
                crosses = known
            } else {
                let value = Mirror(reflecting: state).children.dropFirst(field).first?.value
                crosses = value.map { SlicePath.mayCrossReference(path, from: $0) } ?? true
                crossesReference[path] = crosses
            }
            if crosses { return nil }
        }
        return group
    }

    /// Whether the rest of a key path (after its stored property) may read through a class
    /// instance, by the text of that rest (see `SlicePath`).
    private var crossesReference: [String: Bool] = [:]

    private func makeGroup(field: Int, _ state: State) -> SliceGroup? {
        let value = Mirror(reflecting: state).children.dropFirst(field).first?.value
        guard let value else { return nil }
        let kind: SliceGroup.Kind
        if value is any ChangeFingerprinting {
            kind = .fingerprint
        } else if ChangeDetector.containsFingerprinted(value) {
            kind = .structural   // keeping a copy would make each write copy its entity stores
        } else {
            kind = .identical
        }
        let group = SliceGroup(field: field, kind: kind)
        groups[field] = group
        groupList.append(group)
        return group
    }

    /// Slices recently looked up, by the identity of their key path (a key path literal is
    /// one object, read again and again): a hit costs no key-path hashing.
    /// (`AnyObject?`, not `Slice?`: a concrete element type needs no run-time metadata lookup.)
    private var recentSlices = [AnyObject?](repeating: nil, count: 32)

    @inline(__always)
    private static func recentIndex(_ keyPath: AnyKeyPath) -> Int {
        Int(truncatingIfNeeded: (UInt(bitPattern: ObjectIdentifier(keyPath)) >> 4) & 31)
    }

    /// The entry of `keyPath`, created on first use.
    private func slice<Value>(for keyPath: KeyPath<State, Value>, _ state: @autoclosure () -> State) -> Slice {
        let index = Self.recentIndex(keyPath)
        if let object = recentSlices[index] {
            let recent = unsafeDowncast(object, to: Slice.self)
            if recent.pathObject === keyPath { return recent }
        }
        let slice: Slice
        if let found = slices[keyPath] {
            slice = found
        } else {
            if slices.count >= 1_024, slices.count >= 2 * (ungroupedArmedCount + groupedArmedCount) { sweepDisarmedSlices() }
            slice = makeSlice(keyPath, state())
            slice.group = group(for: keyPath, state())
            slices[keyPath] = slice
        }
        recentSlices[index] = slice
        return slice
    }

    /// Reads `keyPath` in `state`, registers the read with the current observer (if any) and
    /// arms its entry.
    /// `state` points to the root store's state.
    func read<Value>(_ keyPath: KeyPath<State, Value>, in state: UnsafePointer<State>) -> Value {
        let slice = slice(for: keyPath, state.pointee)
        // A stored property is read in place (no key-path projection, no copy of the state).
        let value = slice.offset >= 0
            ? (UnsafeRawPointer(state) + slice.offset).assumingMemoryBound(to: Value.self).pointee
            : state.pointee[keyPath: keyPath]
        if !slice.armed {
            // The test of this key path is typed for `Value` (see `makeSlice`); passed by
            // pointer, so that no generic metadata is looked up here.
            if !withUnsafePointer(to: value, { slice.test.rebase(value: UnsafeRawPointer($0)) }) {
                slice.test.rebase(UnsafeRawPointer(state))
            }
            arm(slice)
        }
        slice.access(self)
        return value
    }

    /// Registers a read of `keyPath` with the current observer (if any) and arms its entry.
    func track<Value>(_ keyPath: KeyPath<State, Value>, in state: @autoclosure () -> State) {
        let slice = slice(for: keyPath, state())
        if !slice.armed {
            withUnsafePointer(to: state()) { slice.test.rebase(UnsafeRawPointer($0)) }
            arm(slice)
        }
        slice.access(self)
    }

    /// Marks a rebased slice armed and lists it.
    private func arm(_ slice: Slice) {
        slice.armed = true
        if let group = slice.group {
            if !slice.listed { group.armed.append(slice) }
            group.armedCount += 1
            groupedArmedCount += 1
        } else {
            if !slice.listed { armedSlices.append(slice) }
            ungroupedArmedCount += 1
        }
        slice.listed = true
    }

    private func makeSlice<Value>(_ keyPath: KeyPath<State, Value>, _ state: State) -> Slice {
        let offset = MemoryLayout<State>.offset(of: keyPath) ?? -1
        let test: any SliceTest
        switch ChangeDetector.strategy(for: state[keyPath: keyPath]) {
        case .fingerprint:
            if let type = Value.self as? any ChangeFingerprinting.Type {
                func typed<F: ChangeFingerprinting>(_: F.Type) -> any SliceTest {
                    FingerprintSlice(path: keyPath as! KeyPath<State, F>, offset: offset)
                }
                test = typed(type)
            } else {
                test = StructuralSlice(path: keyPath)
            }
        case .equatable:
            if let type = Value.self as? any Equatable.Type {
                func typed<E: Equatable>(_: E.Type) -> any SliceTest {
                    EquatableSlice(path: keyPath as! KeyPath<State, E>, offset: offset)
                }
                test = typed(type)
            } else {
                test = StructuralSlice(path: keyPath)
            }
        case .identity, .fields, .opaque:
            test = StructuralSlice(path: keyPath)
        }
        return Slice(test: test, pathObject: keyPath, offset: offset, key: makeSliceKey())
    }

    /// Drops the entries of key paths not read since they fired; amortized O(1) per new entry.
    private func sweepDisarmedSlices() {
        for (path, slice) in slices where !slice.armed { slices[path] = nil }
        // Swept slices must not be found by identity (their key path may be freed).
        for index in recentSlices.indices {
            if let object = recentSlices[index], !unsafeDowncast(object, to: Slice.self).armed { recentSlices[index] = nil }
        }
    }

    // MARK: Entity store slices

    private var entitySlices: [AnyKeyPath: any TrackedEntitySliceProtocol<State>] = [:]
    private var entitySliceList: [any TrackedEntitySliceProtocol<State>] = []
    /// `entitySliceList.count`, read on every dispatch (cheaper than the existential array).
    private var entitySliceCount = 0

    /// The observer of reads of the entity store at `keyPath` (created on first use).
    func entitySlice<Entity>(_ keyPath: KeyPath<State, EntityStore<Entity>>, in state: State) -> TrackedEntitySlice<State, Entity> {
        if let found = entitySlices[keyPath] { return found as! TrackedEntitySlice<State, Entity> }
        let slice = TrackedEntitySlice(tracker: self, path: keyPath, seen: state[keyPath: keyPath].changeFingerprint)
        entitySlices[keyPath] = slice
        entitySliceList.append(slice)
        entitySliceCount += 1
        return slice
    }

    // MARK: Notification

    /// `true` when a dispatch has anything to check.
    var isTracking: Bool { ungroupedArmedCount > 0 || groupedArmedCount > 0 || entitySliceCount > 0 }

    /// What the last `collect` found, until `notifyCollected` (kept by the tracker, so that
    /// a dispatch builds no generic value: their metadata is looked up at run time).
    private var firedFirst: Slice?
    private var firedMore: [Slice] = []
    private var firedKeys: [Key] = []

    private func fired(_ slice: Slice) {
        if firedFirst == nil { firedFirst = slice } else { firedMore.append(slice) }
    }

    /// Finds the entries to notify after a change of the state and disarms them
    /// (``notifyCollected()`` notifies them). Empties the entity stores' observation logs
    /// (hence `inout`; nothing else is written).
    /// `state` points to the root store's state.
    func collect(_ state: UnsafeMutablePointer<State>) {
        collectSlices(UnsafeRawPointer(state))
        if entitySliceCount > 0 {
            for slice in entitySliceList { slice.collect(&state.pointee, into: &firedKeys) }
        }
    }

    /// The slice part of `collect`: `state` points to the state (by pointer: the slices'
    /// bookkeeping is not generic, so that a dispatch looks no generic metadata up).
    private func collectSlices(_ state: UnsafeRawPointer) {
        var comparisons = ungroupedArmedCount
        if ungroupedArmedCount > 0 {
            var firedHere = 0
            for slice in armedSlices where slice.armed && slice.test.changed(state) {
                slice.armed = false
                slice.test.forget()
                fired(slice)
                firedHere += 1
            }
            ungroupedArmedCount -= firedHere
            Self.compact(&armedSlices, armed: ungroupedArmedCount)
        }
        if groupedArmedCount > 0 || !groupList.isEmpty {
            let fields: [Any]? = groupedArmedCount >= Self.gateThreshold
                ? Mirror(reflecting: state.assumingMemoryBound(to: State.self).pointee).children.map { $0.value } : nil
            for group in groupList {
                guard group.armedCount > 0 else {
                    group.forgetSnapshot()   // nothing to gate: keep no copy
                    continue
                }
                if let fields, group.field < fields.count {
                    if group.isUnchanged(fields[group.field]) { continue }
                } else {
                    group.forgetSnapshot()   // not checked this time: unknown next time
                }
                comparisons += group.armedCount
                var firedHere = 0
                for slice in group.armed where slice.armed && slice.test.changed(state) {
                    slice.armed = false
                    slice.test.forget()
                    fired(slice)
                    firedHere += 1
                }
                if firedHere > 0 {
                    group.armedCount -= firedHere
                    groupedArmedCount -= firedHere
                    Self.compact(&group.armed, armed: group.armedCount)
                }
            }
        }
        lastComparisonCount = comparisons
    }

    /// Drops the disarmed slices from `list` once they outnumber the `armed` ones (amortized
    /// O(1); a slice that fires and is read again right away, the common case, stays listed).
    private static func compact(_ list: inout [Slice], armed: Int) {
        guard list.count > 16, list.count > 2 * armed else { return }
        var kept: [Slice] = []
        kept.reserveCapacity(armed)
        for slice in list {
            if slice.armed { kept.append(slice) } else { slice.listed = false }
        }
        list = kept
    }

    /// Notifies the observers of what ``collect(_:)`` found (they may read and re-arm from
    /// their `onChange`, or cause another collect: the found entries are taken first).
    func notifyCollected() {
        let first = firedFirst
        firedFirst = nil
        guard !firedMore.isEmpty || !firedKeys.isEmpty else {
            first?.notify(self)
            return
        }
        notifyMany(first)
    }

    /// Several entries fired (kept apart: the generic arrays' metadata would be looked up on
    /// every call of the single-entry path).
    @inline(never)
    private func notifyMany(_ first: Slice?) {
        let more = firedMore, keys = firedKeys
        firedMore = []
        firedKeys = []
        first?.notify(self)
        for slice in more { slice.notify(self) }
        for key in keys {
            ObservedRun.noteChange(self, key)
            entryRegistrar.willSet(sliceKeys, keyPath: key)
            entryRegistrar.didSet(sliceKeys, keyPath: key)
        }
        freeKeys.append(contentsOf: keys)
    }

    /// The number of armed entries (slices, rows, memberships). For tests.
    var trackedEntryCount: Int {
        ungroupedArmedCount + groupedArmedCount + entitySliceList.reduce(0) { $0 + $1.trackedEntryCount }
    }
}
