extension EntityStore: Encodable where Entity: Encodable {
    /// Encodes the entities in order, as an array. The change log is not encoded.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(items)   // [{"id":1,…},{"id":2,…}]
    /// ```
    ///
    /// - Complexity: O(*n*).
    @inlinable
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for entity in self { try container.encode(entity) }
    }
}

extension EntityStore: Decodable where Entity: Decodable {
    /// Decodes an array of entities: hydration, records nothing. A repeated id keeps its
    /// first place and its last value.
    ///
    /// ```swift
    /// let items = try JSONDecoder().decode(EntityStore<Item>.self, from: data)
    /// ```
    ///
    /// - Complexity: O(*n*).
    @inlinable
    public init(from decoder: any Decoder) throws {
        self.init(try [Entity](from: decoder))
    }
}
