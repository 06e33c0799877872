extension TestStore {
    /// `true` when ``undo(assert:fileID:filePath:line:column:)`` would change the state
    /// (the test store was created with `undo:`).
    public var canUndo: Bool { store.canUndo }
    /// `true` when ``redo(assert:fileID:filePath:line:column:)`` would change the state.
    public var canRedo: Bool { store.canRedo }

    /// Undoes the last undoable step (`Store/undo()`) and asserts the state change, as
    /// ``send(_:assert:fileID:filePath:line:column:)`` does.
    ///
    /// ```swift
    /// let store = TestStore(initialState: AppState(), reducer: AppReducer(), environment: .test,
    ///                       undo: UndoMiddleware(recording: \.items))
    /// await store.send(.add(milk)) { $0.items[milk.id] = milk }
    /// await store.undo { $0.items[milk.id] = nil }
    /// await store.redo { $0.items[milk.id] = milk }
    /// ```
    ///
    /// Fails when there is nothing to undo (or the test store has no `undo:`), and, in
    /// ``Exhaustivity/on`` mode, when received actions were not asserted first.
    public func undo(
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await restoreStep(
            "undo()", available: store.canUndo, restore: store.undo, update: updateStateToExpectedResult,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Re-applies the last undone step (`Store/redo()`) and asserts the state change, as
    /// ``send(_:assert:fileID:filePath:line:column:)`` does.
    ///
    /// ```swift
    /// await store.undo { $0.items[milk.id] = nil }
    /// await store.redo { $0.items[milk.id] = milk }
    /// ```
    ///
    /// Fails when there is nothing to redo, and, in ``Exhaustivity/on`` mode, when received
    /// actions were not asserted first.
    public func redo(
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await restoreStep(
            "redo()", available: store.canRedo, restore: store.redo, update: updateStateToExpectedResult,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// One undo or redo step: restores a snapshot and checks the state it left.
    private func restoreStep(
        _ step: String,
        available: Bool,
        restore: () -> Void,
        update: ((inout State) throws -> Void)?,
        at site: CallSite
    ) async {
        needsCompletionCheck = true
        reportEffectErrors(at: site)
        requireReceivedAsserted(before: step, at: site)
        guard available else {
            site.report("""
            Nothing to \(step.dropLast(2)): \(step) would not change the state. Create the test \
            store with `undo: UndoMiddleware(recording: …)` and send an undoable action first.
            """)
            return
        }
        restore()
        assertStateChange(after: step, actual: store.state, update, at: site)
        await settleEffects()
        reportEffectErrors(at: site)
    }
}
