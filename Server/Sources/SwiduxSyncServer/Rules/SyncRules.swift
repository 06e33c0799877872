import SwiduxSyncWire

/// A rule of one table: given a pushed change of one of its rows (``SyncRuleInput``), it
/// accepts it, refuses it with a reason, or rewrites the row (``SyncRuleDecision``). A rule
/// that throws refuses the change with the error's description.
///
/// ```swift
/// let nonEmpty: SyncRule = { input in
///     guard case .text(let title)? = input.after?["title"], !title.isEmpty else { return .refuse(reason: "a title is required") }
///     return .accept
/// }
/// ```
public typealias SyncRule = @Sendable (SyncRuleInput) async throws -> SyncRuleDecision

/// The server's rules, by table (``SyncServer/rules``): each pushed change of a row of a
/// table with a rule is given to it, in the push's transaction, before it is written.
///
/// A refused change never fails the rest of the push: its result comes back
/// `applied: false` with the reason and the server's row, which the device takes (a refused
/// insert of a row the server never had is deleted on the device), and the app lists it with
/// its conflicts. A rewrite is written as the rule made it and answered to the device,
/// which takes it. Rules run for the writers and owners of a space (an opaque token writes
/// its own space); every change a reader pushes is refused without asking them.
///
/// A rule runs inside the push's transaction, holding the space's lock: every other push to
/// the space waits for it, so it should decide from the rows at hand, not call out to a slow
/// service. It may run twice for one push (a large first push retried with upserts), so it
/// should have no effects of its own.
///
/// ```swift
/// var rules = SyncRules()
/// rules["item"] = { input in
///     guard let after = input.after else { return .accept }   // a delete
///     guard case .text(let title)? = after["title"], (1...500).contains(title.count) else {
///         return .refuse(reason: "a title has 1 to 500 characters")
///     }
///     return .accept
/// }
/// server.rules = rules
/// ```
public struct SyncRules: Sendable {
    private var byTable: [String: SyncRule]

    /// Rules, by table name (none by default: every change is accepted).
    ///
    /// ```swift
    /// let rules = SyncRules(["item": { _ in .accept }])
    /// ```
    public init(_ rules: [String: SyncRule] = [:]) {
        byTable = rules
    }

    /// The rule of `table`; setting `nil` removes it.
    ///
    /// ```swift
    /// rules["list"] = { input in input.role == .owner || input.before != nil ? .accept : .refuse(reason: "only an owner makes lists") }
    /// ```
    public subscript(table: String) -> SyncRule? {
        get { byTable[table] }
        set { byTable[table] = newValue }
    }

    /// Whether no table has a rule.
    ///
    /// ```swift
    /// if server.rules.isEmpty { print("every change is accepted") }
    /// ```
    public var isEmpty: Bool { byTable.isEmpty }
}
