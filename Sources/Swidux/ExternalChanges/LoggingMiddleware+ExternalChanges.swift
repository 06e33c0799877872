extension LoggingMiddleware {
    /// Logs a batch of external changes at ``level``, like an action.
    ///
    /// ```swift
    /// // debug: external changes from sqlite:/…/app.sqlite: 2 upserted, 0 deleted, 0 kept local (\AppState.todos)
    /// ```
    public func didApplyExternalChanges(_ changes: AppliedExternalChanges, state: State) {
        logger.log(level: level, "\(changes)")
    }
}
