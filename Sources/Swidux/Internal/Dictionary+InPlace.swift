// A dictionary operation the entity storage and the pending writes share.

extension Dictionary where Value == Int {
    /// The value of `key`, after inserting `value` for it if the key is absent: one hash of
    /// the key either way (the `default:` subscript's in-place access inserts when absent).
    @inlinable
    mutating func value(forKey key: Key, insertingIfAbsent value: Int) -> Int {
        Self.read(&self[key, default: value])
    }

    @inlinable
    static func read(_ value: inout Int) -> Int { value }
}
