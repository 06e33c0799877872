/// The answer of `GET v1/spaces` (``SyncProtocol/spacesPath``): every space the caller's
/// token reaches. A JWT user's personal space (`user:` and the subject, reached without the
/// query parameter `space`) comes first, then the shared spaces they are a member of, by name;
/// an opaque token reaches its one space, as a writer.
///
/// ```swift
/// let list = try JSONDecoder().decode(SpaceList.self, from: body)
/// let shared = list.spaces.filter { !$0.personal }.map(\.name)
/// ```
public struct SpaceList: Hashable, Sendable, Codable {
    /// The spaces, the personal one first.
    public var spaces: [SpaceEntry]

    /// A list of spaces.
    ///
    /// ```swift
    /// let list = SpaceList(spaces: [SpaceEntry(name: "user:alice", role: "owner", personal: true)])
    /// ```
    public init(spaces: [SpaceEntry]) { self.spaces = spaces }
}

/// One space of a ``SpaceList``.
///
/// ```swift
/// let entry = SpaceEntry(name: "family", role: "reader", personal: false)
/// ```
public struct SpaceEntry: Hashable, Sendable, Codable {
    /// The space's name: the query parameter `space` of the requests that reach it (none for
    /// the personal space).
    public var name: String
    /// The caller's role there: `owner`, `writer` or `reader`.
    public var role: String
    /// Whether this is the space reached without the query parameter `space` (a JWT user's
    /// personal space, an opaque token's own space).
    public var personal: Bool

    /// An entry.
    ///
    /// ```swift
    /// let entry = SpaceEntry(name: "family", role: "writer", personal: false)
    /// ```
    public init(name: String, role: String, personal: Bool) {
        self.name = name
        self.role = role
        self.personal = personal
    }
}

/// The body of `POST v1/spaces`: the name of a shared space to make, owned by the caller.
///
/// ```swift
/// let body = try JSONEncoder().encode(NewSpace(name: "list-5f0c"))
/// ```
public struct NewSpace: Hashable, Sendable, Codable {
    /// The space's name (1 to 200 bytes; not starting with `user:`, the personal spaces' prefix).
    public var name: String

    /// A space to make.
    ///
    /// ```swift
    /// let body = NewSpace(name: "family")
    /// ```
    public init(name: String) { self.name = name }
}

/// A member of a shared space: the body of `POST v1/spaces/{space}/members`, and each entry
/// of its `GET` answer (``SpaceMemberList``).
///
/// ```swift
/// let body = try JSONEncoder().encode(SpaceMemberEntry(user: "bob", role: "reader"))
/// ```
public struct SpaceMemberEntry: Hashable, Sendable, Codable {
    /// The user: a JWT's subject.
    public var user: String
    /// `owner`, `writer` or `reader`.
    public var role: String

    /// A member.
    ///
    /// ```swift
    /// let member = SpaceMemberEntry(user: "bob", role: "writer")
    /// ```
    public init(user: String, role: String) {
        self.user = user
        self.role = role
    }
}

/// The answer of `GET v1/spaces/{space}/members`.
///
/// ```swift
/// let owners = try JSONDecoder().decode(SpaceMemberList.self, from: body).members.filter { $0.role == "owner" }
/// ```
public struct SpaceMemberList: Hashable, Sendable, Codable {
    /// The members, by user.
    public var members: [SpaceMemberEntry]

    /// A list of members.
    ///
    /// ```swift
    /// let list = SpaceMemberList(members: [SpaceMemberEntry(user: "alice", role: "owner")])
    /// ```
    public init(members: [SpaceMemberEntry]) { self.members = members }
}
