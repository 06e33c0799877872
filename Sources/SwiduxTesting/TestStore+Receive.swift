import CustomDump

extension TestStore {
    /// Waits for the next action an effect sends, asserts it equals `expected`, and asserts
    /// the state change it made (see ``send(_:assert:fileID:filePath:line:column:)``).
    ///
    /// ```swift
    /// await store.send(.incrementTapped) { $0.isLoading = true }
    /// await store.receive(.incrementResponse(.success(1))) {
    ///     $0.count = 1
    ///     $0.isLoading = false
    /// }
    /// ```
    ///
    /// Fails if a different action arrives first (in ``Exhaustivity/off`` mode, other
    /// actions are skipped), or if none arrives within `timeout` (default ``timeout``) of
    /// real time, or at once when no effect is running any more. Actions from effects that
    /// wait on a `TestClock` arrive only after `await clock.advance(by:)`.
    public func receive(
        _ expected: Action,
        timeout: Duration? = nil,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async where Action: Equatable {
        await receiveStep(
            expectation: describe(expected),
            matches: { $0 == expected },
            mismatch: { received in
                let difference = diff(expected, received, format: .proportional)
                    ?? "  − \(describe(expected))\n  + \(describe(received))"
                return """
                Received unexpected action \(describe(received)), expected \(describe(expected)):

                \(indent(difference))

                (Expected: −, Received: +)
                """
            },
            timeout: timeout,
            update: updateStateToExpectedResult,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Waits for the next action an effect sends, asserts `matching` accepts it, and asserts
    /// the state change it made. For actions that are not `Equatable` (a `Result` with an
    /// `any Error`, closures), or to check only part of an action.
    ///
    /// ```swift
    /// await store.receive({ if case .incrementResponse(.failure) = $0 { true } else { false } }) {
    ///     $0.isLoading = false
    ///     $0.error = "offline"
    /// }
    /// ```
    public func receive(
        _ matching: (Action) -> Bool,
        timeout: Duration? = nil,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await receiveStep(
            expectation: "an action matching the predicate",
            matches: matching,
            mismatch: { "Received action \(describe($0)) does not match the predicate." },
            timeout: timeout,
            update: updateStateToExpectedResult,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Waits for the next action an effect sends whose payload `extract` finds, asserts it
    /// equals `value`, and asserts the state change: a case-path-free way to match one
    /// case of an action that is not `Equatable` as a whole.
    ///
    /// ```swift
    /// await store.receive({ if case .loaded(let items) = $0 { items } else { nil } }, ["Milk"]) {
    ///     $0.items = ["Milk"]
    /// }
    /// ```
    public func receive<Value: Equatable>(
        _ extract: (Action) -> Value?,
        _ value: Value,
        timeout: Duration? = nil,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await receiveStep(
            expectation: "an action carrying \(describe(value))",
            matches: { extract($0) == value },
            mismatch: { received in
                guard let payload = extract(received) else {
                    return "Received action \(describe(received)) is not the expected case (carrying \(describe(value)))."
                }
                let difference = diff(value, payload, format: .proportional) ?? ""
                return """
                Received action \(describe(received)) carries a different value:

                \(indent(difference))

                (Expected: −, Received: +)
                """
            },
            timeout: timeout,
            update: updateStateToExpectedResult,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Drops the actions effects sent that were not asserted yet; the state after the last
    /// one becomes the baseline of the next assertion.
    ///
    /// ```swift
    /// await store.send(.onAppear)
    /// await clock.advance(by: .seconds(5))
    /// await store.skipReceivedActions()   // the ticks are not what this test is about
    /// ```
    public func skipReceivedActions(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        for _ in 0..<10 { await Task.yield() }
        reportEffectErrors(at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        skipReceived()
    }

    /// One `receive`: waits for a received action, checks it and the state it left.
    func receiveStep(
        expectation: String,
        matches: (Action) -> Bool,
        mismatch: (Action) -> String,
        timeout: Duration?,
        update: ((inout State) throws -> Void)?,
        at site: CallSite
    ) async {
        needsCompletionCheck = true
        reportEffectErrors(at: site)
        let limit = timeout ?? self.timeout
        var budget = WaitBudget(limit)
        var polls = 0
        while true {
            if exhaustivity == .off {
                while let first = recorder.received.first, !matches(first.action) {
                    _ = recorder.popReceived()
                    asserted = first.state
                }
            }
            if !recorder.received.isEmpty { break }
            // An effect delivers its actions before it counts as finished: with none
            // running, nothing more can arrive.
            if runningEffectCount == 0 {
                site.report("Expected to receive \(expectation), but none was received and no effect is running.")
                return
            }
            if budget.isSpent {
                site.report("""
                Expected to receive \(expectation), but none was received within \(limit). \
                If an effect waits on a test clock, advance it first.
                """)
                return
            }
            await pause(poll: polls)
            budget.tick()
            polls += 1
        }
        guard let step = recorder.popReceived() else { return }
        if matches(step.action) {
            assertStateChange(after: "receive(\(describe(step.action)))", actual: step.state, update, at: site)
        } else {
            site.report(mismatch(step.action))
            asserted = step.state
        }
        await settleEffects()
        reportEffectErrors(at: site)
    }
}
