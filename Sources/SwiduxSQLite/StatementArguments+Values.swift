import GRDB

package extension StatementArguments {
    /// `values` as positional arguments.
    ///
    /// GRDB's `StatementArguments(_:)` over a sequence of convertible values, called from
    /// another module, is not specialized and instantiates a key path on every call
    /// (`\.databaseValue`, demangling included): a profile of a pulled page of 10,000 rows
    /// found it costing more than the upserts' own SQLite work. This goes through the
    /// initializer over optional existentials instead, which takes a plain closure.
    init(databaseValues values: [DatabaseValue]) {
        self.init(values.map { Optional($0 as any DatabaseValueConvertible) })
    }
}
