/// Why a change to a space's members was refused, with the sentence that names the thing and
/// the cause; its kind chooses the HTTP status of the members API (the commands print the sentence).
///
/// ```swift
/// throw MemberRefusal(.notFound, "no space named \"family\"")
/// ```
struct MemberRefusal: Error, CustomStringConvertible {
    enum Kind {
        /// The space or the member does not exist (404).
        case notFound
        /// The caller may not do this in the space (403).
        case forbidden
        /// The change would break an invariant or is malformed (409 or 400).
        case invalid
    }

    let kind: Kind
    let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
