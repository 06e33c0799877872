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

/// A row of a synced table: its table and its id as stored.
struct RowKey: Hashable, Sendable {
    var table: String
    var id: DatabaseValue
}
