/// One member of a space: a JWT user (by subject) and their role there.
///
/// ```swift
/// for member in try await Members.list(space: "family", client: client, logger: logger) {
///     print(member.space, member.subject, member.role.rawValue)
/// }
/// ```
public struct SpaceMember: Equatable, Sendable {
    /// The space's name.
    public let space: String
    /// The user's subject (a JWT's `sub`).
    public let subject: String
    /// What the user may do in the space.
    public let role: SpaceRole

    /// A member.
    ///
    /// ```swift
    /// SpaceMember(space: "family", subject: "alice", role: .owner)
    /// ```
    public init(space: String, subject: String, role: SpaceRole) {
        self.space = space
        self.subject = subject
        self.role = role
    }
}
