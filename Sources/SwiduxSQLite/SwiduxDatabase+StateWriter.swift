import GRDB

extension SwiduxDatabase {
    /// A `StateWriter` persisting the `EntityStore` at `keyPath` into `table`.
    ///
    /// All the writers built on one database are written by `PersistenceMiddleware`
    /// in one transaction per flush (``performAtomically(_:)``): after a crash the file
    /// holds the state of a completed flush, never half of one. Insertions use one cached
    /// `INSERT … ON CONFLICT(id) DO UPDATE` statement, updates one cached `UPDATE`,
    /// deletions one cached `DELETE` (see ``EntityTable/write(_:in:)``). An update of a
    /// row another writer deleted is not re-inserted: the id comes back to the middleware
    /// as vanished (delete wins over a stale update). A write whose parent row another
    /// writer deleted is set aside — its row left out, the rest of the flush saved — and
    /// comes back as orphaned: the store drops the entity, as a cascade would have.
    ///
    /// ```swift
    /// let persistence = PersistenceMiddleware<AppState>(writers: [
    ///     database.stateWriter(for: \.lists, table: AppDatabase.lists),
    ///     database.stateWriter(for: \.items, table: AppDatabase.items),
    /// ])
    /// ```
    ///
    /// It also binds the table to the key path for `store.follow(database)` (see
    /// <doc:ExternalChanges>).
    ///
    /// Inlinable, so that the writer's drain (run after every reduce) is specialized for
    /// the app's state and entity types.
    @MainActor
    @inlinable
    public func stateWriter<State, Entity>(
        for keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        table: EntityTable<Entity>
    ) -> StateWriter<State> {
        let token = JournalWriterToken()
        let writer = StateWriter(keyPath: keyPath, backend: self, apply: { db, batch in
            // Orphans set aside (see OrphanedWrites) come back in the result; the flush
            // notes what the batch did (for the orphan check and the journal).
            try table.writeSettingAsideOrphans(batch, in: db, by: token)
        })
        bindForExternalChanges(keyPath, table: table, writer: writer, token: token)
        return writer
    }

    /// Binds `table` to `keyPath` for `store.follow(database)`, as written by `writer`.
    @MainActor
    @usableFromInline
    func bindForExternalChanges<State, Entity>(
        _ keyPath: WritableKeyPath<State, EntityStore<Entity>>, table: EntityTable<Entity>,
        writer: StateWriter<State>, token: JournalWriterToken
    ) {
        journal.bind(StateTableBinding(keyPath: keyPath, table: table, writer: writer, token: token))
    }
}
