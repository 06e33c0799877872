import CustomDump

extension TestStore {
    /// Waits for the next action an effect sends, asserts it is the case `casePath`
    /// constructs, and asserts the state change: no extractor closure and no `Equatable`
    /// action needed (a `Result` with an `any Error`, a closure payload).
    ///
    /// ```swift
    /// await store.send(.load)
    /// await store.receive(AppAction.loadFailed) { $0.error = "offline" }   // case loadFailed(any Error)
    /// ```
    ///
    /// Pass the case's constructor (`AppAction.loadFailed`), nothing else: the received
    /// action matches when it is an enum case carrying a `Payload` and rebuilding it with
    /// `casePath` gives the same case (compared by case name, through `Mirror`).
    ///
    /// Limits: the case has exactly **one** associated value (labelled or not); for a case
    /// with several, or a case without a value, pass a predicate instead
    /// (`receive({ if case .moved = $0 { true } else { false } })`). Cases are told apart by name, so two overloaded cases with the same
    /// name (`case load(Int)`, `case load(String)`) are told apart by payload type only.
    public func receive<Payload>(
        _ casePath: (Payload) -> Action,
        timeout: Duration? = nil,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await receiveStep(
            expectation: "an action of the expected case (carrying a \(Payload.self))",
            matches: { CaseMatch.payload(of: $0, as: casePath) != nil },
            mismatch: {
                "Received action \(describe($0)) is not the expected case (carrying a \(Payload.self))."
            },
            timeout: timeout,
            update: updateStateToExpectedResult,
            at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    /// Waits for the next action an effect sends, asserts it is the case `casePath`
    /// constructs carrying `value`, and asserts the state change (the case has one
    /// associated value, as for `receive(AppAction.loadFailed)`).
    ///
    /// ```swift
    /// await store.receive(AppAction.loaded, ["Milk"]) { $0.items = ["Milk"] }
    /// ```
    public func receive<Payload: Equatable>(
        _ casePath: (Payload) -> Action,
        _ value: Payload,
        timeout: Duration? = nil,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await receive(
            { CaseMatch.payload(of: $0, as: casePath) }, value,
            timeout: timeout, assert: updateStateToExpectedResult,
            fileID: fileID, filePath: filePath, line: line, column: column
        )
    }
}

/// Matching an action against an enum case constructor, by reflection.
enum CaseMatch {
    /// The payload of `action` when it is the case `casePath` builds, else `nil`.
    static func payload<Action, Payload>(of action: Action, as casePath: (Payload) -> Action) -> Payload? {
        guard let (label, value) = labelAndValue(of: action),
              let payload = (value as? Payload) ?? (unwrapSingleLabelled(value) as? Payload),
              labelAndValue(of: casePath(payload))?.label == label
        else { return nil }
        return payload
    }

    /// The case name and associated value of an enum case with a payload.
    private static func labelAndValue(of value: Any) -> (label: String, value: Any)? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum, let child = mirror.children.first, let label = child.label
        else { return nil }
        return (label, child.value)
    }

    /// `case loaded(items: [String])` reflects its payload as the one-element tuple `(items:)`.
    private static func unwrapSingleLabelled(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .tuple, mirror.children.count == 1 else { return nil }
        return mirror.children.first?.value
    }
}
