import Foundation

/// The one normalisation of list names, applied on every path (creating, renaming,
/// looking up from the UI and the command line, and the database's unique key).
///
/// A name is cleaned (newlines and tabs become spaces, surrounding spaces go) and must
/// hold 1 to ``Limits/name`` characters; two names are the same list when their
/// ``key(_:)``s are equal (case-, width- and canonical-equivalence-insensitive).
enum ListName {
    /// The name as stored and shown: `"  Home\n"` → `"Home"`.
    static func clean(_ raw: String) -> String { Limits.clean(raw) }

    /// The cleaned name, or why it is refused (empty, over the limit).
    static func validate(_ raw: String) -> Result<String, TodosError> {
        let name = clean(raw)
        if name.isEmpty { return .failure(TodosError("a list name can't be empty")) }
        if let excess = Limits.excess(name, max: Limits.name, what: "a list name") { return .failure(TodosError(excess)) }
        return .success(name)
    }

    /// The key two names share when they name the same list: `"Work"`, `" work "` and
    /// `"WORK"` → `"work"`. Stored in the `nameKey` column, which is unique.
    static func key(_ raw: String) -> String {
        clean(raw).precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive, .widthInsensitive], locale: nil)
    }

    /// The id a list created by name gets: derived from its ``key(_:)``, so that devices
    /// syncing through a server that each create "Inbox" create the same list (the unique
    /// name key would otherwise keep the other device's list out).
    static func id(forKey key: String) -> UUID {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
            return hash
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for (offset, value) in [fnv(0xcbf29ce484222325), fnv(0x84222325cbf29ce4)].enumerated() {
            for index in 0..<8 { bytes[offset * 8 + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x50   // name-based
        bytes[8] = (bytes[8] & 0x3F) | 0x80   // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

extension String {
    /// "a title…" → "A title…" (error texts reused as status messages).
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
