// Array operations the persistence and undo hot paths share, specialized where they are
// inlined.

extension Array {
    /// Removes the last `k` elements, one at a time, keeping the capacity: cheaper than
    /// `removeLast(_:)` or `removeAll(keepingCapacity:)`, whose ranged removal destroys the
    /// elements through the runtime's generic array destroy where it is not specialized
    /// (about twice the instructions per element for an `Optional` of an entity).
    @inlinable
    mutating func removeLastOneByOne(_ k: Int) {
        for _ in 0..<k { removeLast() }
    }

    /// Removes every element, one at a time (see `removeLastOneByOne(_:)`).
    @inlinable
    mutating func removeAllOneByOne() {
        removeLastOneByOne(count)
    }
}

extension Array where Element == UInt32 {
    /// Sets the element at `index`, appending zeros first when the array is shorter (per-slot
    /// hints and stamps: a slot not written yet reads 0, "none").
    @inlinable
    mutating func setGrowing(_ value: UInt32, at index: Int) {
        if index < count {
            self[index] = value
        } else {
            if index > count { append(contentsOf: repeatElement(0, count: index - count)) }
            append(value)
        }
    }
}
