/// A child process that could not be started or did not do what it should.
///
/// ```swift
/// guard result.status == 0 else { throw ProcessFailure("initdb failed: \(result.stderr)") }
/// ```
public struct ProcessFailure: Error, CustomStringConvertible {
    /// What happened.
    public let description: String
    /// A failure with its message.
    public init(_ description: String) { self.description = description }
}
