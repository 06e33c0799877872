import GRDB

/// What one ``ChangeFeedBatch`` holds for one table: the current rows of the ids others
/// changed, and the ids whose row is gone.
///
/// ```swift
/// if let todos = batch.changes(in: AppDatabase.todos) {
///     for upsert in todos.upserts { print(upsert.entity.title) }
///     print("\(todos.deletions.count) deleted")
/// }
/// ```
public struct TableChanges<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// A changed row as stored now.
    public struct Upsert: Sendable {
        /// The entity, decoded from its current row.
        public let entity: Entity
        /// The ids of the next rows in stored order (`position`), nearest first (up to 4;
        /// empty for the last row); set only when ``moved`` is `true`.
        public let successors: [Entity.ID]
        /// The id of the next row in stored order, `nil` for the last (or when not ``moved``).
        public var successor: Entity.ID? { successors.first }
        /// `true` when the row is new or its position changed: the reader places it.
        public let moved: Bool
        /// The journal sequence of the latest change of the row by another writer.
        public let sequence: Int64
    }

    /// A row that is gone.
    public struct Deletion: Sendable {
        /// The row's id.
        public let id: Entity.ID
        /// The journal sequence of its deletion.
        public let sequence: Int64
    }

    /// The changed rows, in stored order.
    public var upserts: [Upsert] = []
    /// The deleted rows.
    public var deletions: [Deletion] = []
    /// In a re-hydration batch (``ChangeFeedBatch/isRehydration``): every row of the table,
    /// in stored order; `upserts` and `deletions` are then empty.
    public var all: [Entity]?
}

/// One delivery of a ``ChangeFeed``: everything other writers committed since the previous
/// one, read in one snapshot (never part of a transaction).
///
/// ```swift
/// for await batch in feed.batches {
///     if let todos = batch.changes(in: AppDatabase.todos) { … }
/// }
/// ```
public struct ChangeFeedBatch: Sendable {
    /// The journal sequence this batch brings the reader to.
    public let cursor: Int64
    /// `true` when the journal could not be replayed (the reader fell behind its pruned
    /// range, or followed for the first time): every table is delivered whole
    /// (``TableChanges/all``), to be merged.
    public let isRehydration: Bool
    /// Journal entries that were skipped, each with why (unknown table, an id or a row
    /// that does not decode). The rest of the batch is complete.
    public let problems: [String]
    /// Who made these changes, when the writer said so in the journal: `"sync"` for the
    /// rows a Swidux sync engine wrote (pulled from the server), `nil` for any other writer.
    /// A store following the database takes a sync batch in as changes of a sync engine
    /// (a recorder writes them with source `sync`).
    ///
    /// ```swift
    /// if batch.origin == "sync" { print("pulled from the server") }
    /// ```
    public let origin: String?
    let tables: [String: any Sendable]

    init(cursor: Int64, isRehydration: Bool, problems: [String], tables: [String: any Sendable], origin: String? = nil) {
        self.cursor = cursor
        self.isRehydration = isRehydration
        self.problems = problems
        self.origin = origin
        self.tables = tables
    }

    /// The changes of `table`, or `nil` when it has none.
    ///
    /// ```swift
    /// let todos = batch.changes(in: AppDatabase.todos)
    /// ```
    public func changes<Entity>(in table: EntityTable<Entity>) -> TableChanges<Entity>? {
        tables[table.name] as? TableChanges<Entity>
    }
}
