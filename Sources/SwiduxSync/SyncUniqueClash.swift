import SwiduxSyncWire

/// A row that must be renamed because a row of another device holds the same values in a
/// unique index of a synced table (two devices that each created a list "Shopping" offline).
///
/// When a pulled row cannot be stored because a `UNIQUE` index already holds its values in a
/// local row of another id, the row that is later in the server's order (a row not pushed
/// yet counts as the latest) is renamed, the same way on every device, and the earlier one
/// keeps its values. By default the renamed row's unique text ``column`` gets `" (2)"` appended (or the
/// first ``number`` that is free). The rename is written like an ordinary local edit (it is
/// pushed) and listed as a conflict of kind `.renamed` (``SyncConflict``).
///
/// An app whose unique column is derived from another one (a normalized key of a shown name)
/// sets a renamer that writes both (``SyncClient/setUniqueRenamer(for:_:)``):
///
/// ```swift
/// client.setUniqueRenamer(for: "todoList") { clash in
///     guard case .text(let name)? = clash.columns["name"] else { return nil }
///     let renamed = "\(name) (\(clash.number))"
///     return .init(column: "name", value: .text(renamed), also: ["nameKey": .text(renamed.lowercased())])
/// }
/// ```
public struct SyncUniqueClash: Hashable, Sendable {
    /// The row's table.
    public var table: String
    /// The id of the row to rename.
    public var id: SyncValue
    /// The row's values, by the local table's column names.
    public var columns: [String: SyncValue]
    /// The unique index's text column the default rename appends to (the last column of the
    /// index that holds text and is neither the id nor part of a foreign key).
    public var column: String
    /// The number to put in the new value: 2, then 3, … until the renamed row clashes with
    /// no local row.
    public var number: Int

    /// A clash.
    ///
    /// ```swift
    /// SyncUniqueClash(table: "todoList", id: .text("1f0c…"), columns: ["name": .text("Shopping")], column: "name", number: 2)
    /// ```
    public init(table: String, id: SyncValue, columns: [String: SyncValue], column: String, number: Int) {
        self.table = table
        self.id = id
        self.columns = columns
        self.column = column
        self.number = number
    }

    /// What a renamer writes: `column` set to `value` (the change listed as the conflict),
    /// and the columns of `also` with it.
    ///
    /// ```swift
    /// SyncUniqueClash.Rename(column: "name", value: .text("Shopping (2)"), also: ["nameKey": .text("shopping (2)")])
    /// ```
    public struct Rename: Hashable, Sendable {
        /// The column listed in the conflict (what the user sees renamed).
        public var column: String
        /// Its new value.
        public var value: SyncValue
        /// Other columns written with it.
        public var also: [String: SyncValue]

        /// A rename.
        ///
        /// ```swift
        /// SyncUniqueClash.Rename(column: "title", value: .text("Notes (2)"))
        /// ```
        public init(column: String, value: SyncValue, also: [String: SyncValue] = [:]) {
            self.column = column
            self.value = value
            self.also = also
        }
    }

    /// The default rename: `" (number)"` appended to the text of ``column``.
    ///
    /// ```swift
    /// clash.defaultRename   // column "name", value "Shopping (2)"
    /// ```
    public var defaultRename: Rename? {
        guard case .text(let text)? = columns[column] else { return nil }
        return Rename(column: column, value: .text("\(text) (\(number))"))
    }
}

/// Renames a row of a table whose unique index clashes with another device's row
/// (``SyncClient/setUniqueRenamer(for:_:)``); `nil` takes ``SyncUniqueClash/defaultRename``.
public typealias SyncUniqueRenamer = @Sendable (SyncUniqueClash) -> SyncUniqueClash.Rename?
