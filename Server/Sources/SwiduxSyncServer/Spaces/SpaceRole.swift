/// What a member of a space may do there: an owner reads, writes and manages the members; a
/// writer reads and writes; a reader only reads.
///
/// ```swift
/// let role = SpaceRole(rawValue: "writer")   // .writer; nil for an unknown role
/// ```
public enum SpaceRole: String, CaseIterable, Sendable {
    case owner, writer, reader
}
