import Foundation
import GRDB

/// A row's key as a member of the sets a push builds for its outbox entries (the rows
/// already in the request being built, the rows in flight), held without a pointer when
/// the id is an integer, an integral real or a blob of at most 16 bytes (a
/// `Set<RowKey>`, each key's table a `String` and its id a `Data` behind its own
/// allocation, was about a tenth of a first push's client time).
///
/// Two are equal exactly when their ``RowKey``s are: the table by its place among the
/// engine's tables (found by `String` equality, so canonically equivalent spellings are
/// one table), the id by ``RowKey``'s equality (an integral real equals its integer, a text
/// is compared byte for byte).
/// A key of a table the engine does not sync, or with another id, keeps its ``RowKey``.
enum CompactRowKey: Hashable {
    case integer(table: Int, Int64)
    case blob(table: Int, count: Int, UInt64, UInt64)
    case other(RowKey)

    /// `key`, whose table is the engine's `table`-th (nil: not one of its tables).
    init(_ key: RowKey, table: Int?) {
        guard let table else {
            self = .other(key)
            return
        }
        switch key.id.storage {
        case .int64(let value):
            self = .integer(table: table, value)
        case .double(let value):
            if let integer = Int64(exactly: value) {
                self = .integer(table: table, integer)
            } else {
                self = .other(key)
            }
        case .blob(let data) where data.count <= 16:
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { words in
                data.withUnsafeBytes { bytes in words.copyMemory(from: bytes) }
            }
            self = .blob(table: table, count: data.count, words.0, words.1)
        default:
            self = .other(key)
        }
    }
}
