/// One undo or redo step: per entity store slot, its `EntityUndoPatch` (boxed); per field
/// slot, its previous value.
struct StatePatch {
    var stores = SlotValues<UndoStorePatch>()
    var fields = SlotValues<Any>()
    var isEmpty: Bool { stores.isEmpty && fields.isEmpty }
    /// `true` when the step holds no value at all, not even an empty array: destroying it
    /// would release nothing (see `StatePatchRing.append`). Given in place (`inout`): a
    /// property read on a step in memory copies the whole step first (its retains and
    /// releases through value witnesses).
    static func holdsNoValue(_ patch: inout StatePatch) -> Bool {
        SlotValues.holdsNoValue(&patch.stores) && SlotValues.holdsNoValue(&patch.fields)
    }
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

    /// `true` when nothing is held, not even an empty array of others: destroying the
    /// values would release nothing. (`firstValue` is `nil` whenever `firstIndex` is
    /// negative: every path that clears the index clears the value.)
    /// Given in place, as `StatePatch.holdsNoValue(_:)` is.
    static func holdsNoValue(_ values: inout SlotValues) -> Bool {
        assert(values.firstIndex >= 0 || values.firstValue == nil, "SlotValues: a first value without a slot")
        guard values.firstIndex < 0, case .none = values.storedOthers else { return false }
        return true
    }

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
