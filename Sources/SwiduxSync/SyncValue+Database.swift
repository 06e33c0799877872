import Foundation
import GRDB
import SwiduxSyncWire

extension SyncValue {
    /// The SQLite value.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        }
    }

    /// The wire value of a SQLite value.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let value): self = .integer(value)
        case .double(let value): self = .real(value)
        case .string(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        }
    }
}

/// A row of a synced table: its table and its id as stored. A text id is compared byte for
/// byte, as SQLite and the server compare it (`DatabaseValue`'s `String` equality merges
/// canonically equivalent spellings, `"caf\u{E9}"` and `"cafe\u{301}"`, which are two rows).
struct RowKey: Hashable, Sendable {
    var table: String
    var id: DatabaseValue

    static func == (a: RowKey, b: RowKey) -> Bool {
        guard a.table == b.table else { return false }
        if case .string(let x) = a.id.storage, case .string(let y) = b.id.storage { return x.utf8.elementsEqual(y.utf8) }
        return a.id == b.id
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(table)
        if case .string(var text) = id.storage {
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        } else {
            hasher.combine(id)
        }
    }
}
