import Foundation

/// The server refused a request as over one of its limits (429 Too Many Requests), with the
/// wait its `Retry-After` header asks for, if any. Continuous sync waits at least that long,
/// plus jitter, before sending the request again (``SyncStateMachine``); out of the client it
/// is ``SyncError/rejected(status:message:)`` with status 429.
///
/// ```swift
/// ServerBusy.retryAfter("5")                               // 5 s
/// ServerBusy.retryAfter("Wed, 21 Oct 2026 07:28:00 GMT")   // until then (zero if past)
/// ```
struct ServerBusy: Error {
    let message: String
    /// The wait the server asked for; nil: it named none (or one that is not a wait).
    let retryAfter: Duration?

    /// The longest wait honoured: a server asking for more is asked again after this.
    static let longestWait: Duration = .seconds(3600)

    var syncError: SyncError { .rejected(status: 429, message: message) }

    /// The wait a `Retry-After` value asks for (RFC 9110, section 10.2.3): a number of
    /// seconds, or an HTTP date, from `now` (zero when it is past); at most ``longestWait``.
    /// nil for any other value.
    static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // Past 3600 digits need not be read exactly: any long number is the longest wait.
            guard text.count <= 9, let seconds = Int64(text) else { return longestWait }
            return min(.seconds(seconds), longestWait)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        return min(.milliseconds(Int64(min(seconds, 3600) * 1000)), longestWait)
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
