/// Swidux 1.0 spellings, kept so that code written for it compiles (see the article
/// "Migrating from Swidux 1.0"). Each says what replaces it.
extension StateWriter {
    /// Swidux 1.0's form: the closure receives the upserted entities and the deleted ids
    /// as a `Set`. A closure that throws has its batch kept and retried, as with
    /// ``init(keyPath:write:)``.
    ///
    /// ```swift
    /// StateWriter(keyPath: \AppState.items, persist: { writes, deletions in
    ///     for item in writes { await itemDB.upsert(item) }
    ///     for id in deletions { await itemDB.delete(id: id) }
    /// })
    /// ```
    @available(
        *, deprecated, renamed: "init(keyPath:write:)",
        message: "Same closure, but its deletions are an array, in the order they were recorded"
    )
    @_disfavoredOverload
    @inlinable
    public convenience init<Entity>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        persist: @escaping @Sendable (_ writes: [Entity], _ deletions: Set<Entity.ID>) async throws -> Void
    ) {
        self.init(keyPath: keyPath, write: { writes, deletions in try await persist(writes, Set(deletions)) })
    }

    /// Moves the change log of this writer's entity store in `state` into the pending batch,
    /// as ``PersistenceMiddleware/afterReduce(state:)`` does for every writer (which also
    /// opens the debounce window; this does not). Returns `true` if anything was recorded.
    ///
    /// ```swift
    /// state.items[card.id] = card
    /// writer.drain(&state)      // true; state.items.changes is empty again
    /// ```
    @available(*, deprecated, message: "Call PersistenceMiddleware.afterReduce(state:), which drains every writer and schedules the flush")
    @discardableResult
    public func drain(_ state: inout State) -> Bool {
        drainState(&state)
    }

    /// Takes the pending batch and returns the work that writes it, or `nil` when nothing is
    /// pending. Nothing is lost: if the write throws, the batch goes back to pending (under
    /// newer changes) for the next flush, and the error is dropped. Entities the backend
    /// reports gone (``WriteResult/vanished``) are not taken out of any state. Do not mix
    /// with the flushes of a ``PersistenceMiddleware`` the writer belongs to: they would
    /// overlap.
    ///
    /// ```swift
    /// writer.drain(&state)
    /// if let work = writer.flush() { await work() }
    /// ```
    @available(*, deprecated, message: "Call PersistenceMiddleware.flush(): it writes every writer in order, reports failures and retries them")
    public func flush() -> (@Sendable () async -> Void)? {
        guard box.hasPending else { return nil }
        let taken = box.takePending()
        return { [self] in
            do {
                let result: any Sendable
                switch taken.run {
                case .direct(let write):
                    result = try await write()
                case .atomic(let group, let operation):
                    result = try await group.perform([operation])[0]
                }
                await settleTaken(result: result)
            } catch {
                await restoreTaken(taken)
            }
        }
    }

    private func settleTaken(result: any Sendable) {
        _ = box.complete(result)
    }

    private func restoreTaken(_ taken: PendingFlush) {
        box.restorePending(taken)
    }
}
