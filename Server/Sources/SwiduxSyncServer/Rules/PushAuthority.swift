import SwiduxSyncWire

/// Who pushes into a space, and the rules their changes go through (``SyncRules``): a
/// reader's every change is refused, a writer's or an owner's goes through the rule of its
/// table, if any.
///
/// ```swift
/// let authority = PushAuthority(role: .writer, user: "alice", space: "family", rules: server.rules)
/// let answer = try await Push.apply(request, space: id, authority: authority, database: database, logger: logger)
/// ```
struct PushAuthority: Sendable {
    var role: SpaceRole
    /// The JWT's subject; nil for an opaque token.
    var user: String?
    /// The space's name, when the request named it (nil: read in the push's transaction if a rule needs it).
    var space: String?
    var rules: SyncRules

    /// An opaque token's (or a test's): a writer, no rules.
    static let writer = PushAuthority(role: .writer, user: nil, space: nil, rules: SyncRules())

    /// Whether `table`'s changes are checked (refused for a reader, given to a rule).
    func checks(_ table: String) -> Bool { role == .reader || rules[table] != nil }

    /// Whether any change may be checked.
    var checksAny: Bool { role == .reader || !rules.isEmpty }
}
