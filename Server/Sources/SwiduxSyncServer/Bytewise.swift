import Foundation

/// Compares and hashes text by its UTF-8 bytes, as PostgreSQL and SQLite compare ids and
/// column names. Swift's `String` compares and hashes by canonical equivalence: `"caf\u{E9}"`
/// and `"cafe\u{301}"` are equal `String`s, but two different ids, and two different
/// columns, for the databases.
///
/// ```swift
/// Bytewise.equal("caf\u{E9}", "cafe\u{301}")   // false
/// let order = names.sorted(by: Bytewise.less)
/// ```
enum Bytewise {
    /// Whether `a` and `b` have the same UTF-8 bytes.
    @inline(__always)
    static func equal(_ a: String, _ b: String) -> Bool {
        compare(a, b) == 0
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s.
    @inline(__always)
    static func less(_ a: String, _ b: String) -> Bool {
        compare(a, b) < 0
    }

    /// Negative, zero or positive as `a`'s UTF-8 bytes sort before, equal or after `b`'s.
    static func compare(_ a: String, _ b: String) -> Int {
        if let contiguous = a.utf8.withContiguousStorageIfAvailable({ x in
            b.utf8.withContiguousStorageIfAvailable { y -> Int in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : Int(memcmp(x.baseAddress!, y.baseAddress!, common))
                return order != 0 ? order : x.count - y.count
            }
        }), let result = contiguous {
            return result
        }
        // A bridged or otherwise non-contiguous string: element by element.
        if a.utf8.elementsEqual(b.utf8) { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    /// Feeds `text`'s UTF-8 bytes to `hasher`.
    static func hash(_ text: String, into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
