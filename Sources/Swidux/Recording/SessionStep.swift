/// A step of a recording as the main actor captured it, for a ``SessionRecorder``'s writer to
/// hash, encode and write.
///
/// Not generic (the action is held as `any Sendable` and cast back by the writer, off the
/// main actor): a generic step's metadata and its array's were looked up at run time on
/// every recorded send.
struct SessionStep: Sendable {
    var isHeader = false
    /// Every part whole, taken after the previous step because the file is full: the writer
    /// rotates here and writes it in the new file's header (``SessionRecorder`` `snapshot: true`).
    var isSnapshot = false
    var kind: String?
    var source: ActionSource = .ui
    var milliseconds: Int64 = 0
    /// The action (of the recorder's `Action` type), for an action step.
    var action: (any Sendable)?
    var origin: String?
    /// Per changed part: its index and what changed.
    var captures: [(part: Int, change: any Sendable)] = []
}
