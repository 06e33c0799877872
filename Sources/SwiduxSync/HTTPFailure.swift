/// Why an exchange with the server got no usable answer, in one phrase
/// (``SyncError/unreachable(_:underlying:)`` prints it).
struct HTTPFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    static let timedOut = HTTPFailure("no answer within the time limit")

    /// An answer longer than any the protocol sends: the server is not a sync server, or
    /// a hostile one (the rest is not read, so that it cannot fill the client's memory).
    static func tooLarge(_ bound: Int) -> HTTPFailure {
        HTTPFailure("an answer larger than \(bound >> 20) MiB, more than a pull page can be; not read further")
    }
}
