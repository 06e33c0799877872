/// A space a user's token reaches: their personal space, or a shared space they are a member
/// of (``SyncSpaces/refresh()``), or one they were removed from, whose rows stay on the
/// device, read-only (``role`` `nil`).
///
/// ```swift
/// for space in try await spaces.refresh() where space.role == .reader { print("\(space.name) (read-only)") }
/// ```
public struct SyncSpace: Hashable, Sendable {
    /// A user's role in a space.
    ///
    /// ```swift
    /// try await spaces.addMember("bob", role: .reader, to: "family")
    /// ```
    public enum Role: String, Hashable, Sendable, CaseIterable {
        /// Reads, writes, and adds and removes members.
        case owner
        /// Reads and writes.
        case writer
        /// Reads only: the server refuses its pushes (each change comes back as a refusal).
        case reader

        /// Whether the role may write the space's rows.
        ///
        /// ```swift
        /// SyncSpace.Role.reader.canWrite   // false
        /// ```
        public var canWrite: Bool { self != .reader }
    }

    /// A member of a shared space (``SyncSpaces/members(of:)``).
    ///
    /// ```swift
    /// let readers = try await spaces.members(of: "family").filter { $0.role == .reader }.map(\.user)
    /// ```
    public struct Member: Hashable, Sendable {
        /// The user: a JWT's subject.
        public var user: String
        /// Their role.
        public var role: Role

        /// A member.
        ///
        /// ```swift
        /// let bob = SyncSpace.Member(user: "bob", role: .writer)
        /// ```
        public init(user: String, role: Role) {
            self.user = user
            self.role = role
        }
    }

    /// The space's name (a personal space's is `user:` and the subject).
    public var name: String
    /// The user's role there; `nil` when they are no longer a member.
    public var role: Role?
    /// Whether this is the token's own space (rows whose space column is `NULL`).
    public var isPersonal: Bool

    /// A space.
    ///
    /// ```swift
    /// let family = SyncSpace(name: "family", role: .writer, isPersonal: false)
    /// ```
    public init(name: String, role: Role?, isPersonal: Bool) {
        self.name = name
        self.role = role
        self.isPersonal = isPersonal
    }

    /// Whether the user may change this space's rows: a member who is not a reader.
    ///
    /// ```swift
    /// if !space.isWritable { print("read-only") }
    /// ```
    public var isWritable: Bool { role?.canWrite ?? false }
}
