extension String {
    /// This string as an SQL identifier: in double quotes, with a double quote inside it
    /// doubled. GRDB's `quotedDatabaseIdentifier` only adds the outer quotes, so a `"` in a
    /// table's or a column's name would end the identifier early and break the statement (or
    /// let a name write SQL of its own). Every table and column name this package and the sync
    /// client put into SQL text goes through here.
    package var sqlIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
