import Foundation

/// The server refused a request as over one of its limits (429 Too Many Requests), with the
/// wait its `Retry-After` header asks for, if any, as asked: continuous sync bounds it (at
/// least a second, at most an hour, `SyncStateMachine.retryAfterRange`) and adds jitter
/// before sending the request again; out of the client it is
/// ``SyncError/rejected(status:message:)`` with status 429.
///
/// ```swift
/// ServerBusy.retryAfter("5")                               // 5 s
/// ServerBusy.retryAfter("Wed, 21 Oct 2026 07:28:00 GMT")   // until then (zero if past)
/// ```
struct ServerBusy: Error {
    let message: String
    /// The wait the server asked for, unbounded; nil: it named none (or one that is not a wait).
    let retryAfter: Duration?

    var syncError: SyncError { .rejected(status: 429, message: message) }

    /// The wait a `Retry-After` value asks for (RFC 9110, section 10.2.3): a number of
    /// seconds, or an HTTP date, from `now` (zero when it is past), as asked: the one bound
    /// is the state machine's. nil for any other value.
    static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // A number too long for Int64 asks for longer than any bound: the longest Duration.
            guard let seconds = Int64(text) else { return .seconds(Int64.max) }
            return .seconds(seconds)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        // A date too far ahead for Int64 milliseconds (a year in the millions): the longest Duration.
        guard seconds < Double(Int64.max / 1000) else { return .seconds(Int64.max) }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// An HTTP date: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), or the obsolete RFC 850
    /// and asctime forms a recipient must accept.
    private static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
