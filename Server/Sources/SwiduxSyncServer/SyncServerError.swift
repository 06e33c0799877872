/// A failure of the server's setup or of a command (a bad URL, an unknown token), with a
/// message that names the thing and the cause.
///
/// ```swift
/// throw SyncServerError("no token matches the one given")
/// ```
public struct SyncServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String

    /// An error with its message.
    ///
    /// ```swift
    /// SyncServerError("the space name is empty")
    /// ```
    public init(_ description: String) { self.description = description }
}
