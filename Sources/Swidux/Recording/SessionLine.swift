/// One line of a recording (JSON lines): the header, or a step. Keys are short: a
/// recording of 100,000 actions stays small.
struct SessionLine<Action> {
    // Header
    var format: String?
    var version: Int?
    var parts: [String]?
    var seed: String?
    /// The index of the first step in this file (after a rotation, not 0).
    var first: Int?
    // Steps
    /// `"undo"`, `"redo"`, `"external"`; `nil` for an action.
    var kind: String?
    var source: ActionSource?
    /// Milliseconds since 1970.
    var time: Int64?
    var action: Action?
    /// Who made external changes.
    var origin: String?
    /// External changes: part name → what changed in it (JSON). In the header: the snapshot
    /// of the parts at the start, when the recorder took one.
    var changes: [String: String]?
    /// Part fingerprints, 8 hex digits each, joined by `.` (in the header: of the state at the start).
    var fingerprint: String?

    enum CodingKeys: String, CodingKey {
        case format = "swidux", version, parts, seed, first
        case kind = "k", source = "s", time = "t", action = "a", origin = "o", changes = "x", fingerprint = "f"
    }

    static var formatName: String { "session" }
    static var currentVersion: Int { 1 }
}

extension SessionLine: Encodable where Action: Encodable {}
extension SessionLine: Decodable where Action: Decodable {}
