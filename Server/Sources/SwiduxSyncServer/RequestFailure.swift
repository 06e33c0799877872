import Hummingbird
import SwiduxSyncWire

/// A request the server refuses: its HTTP status and the sentence for ``SyncErrorBody``.
struct RequestFailure: Error, CustomStringConvertible {
    let status: HTTPResponse.Status
    let description: String
    var code: SyncErrorBody.Code? = nil
    /// The answer carries `Retry-After`, whose wait is the server's one setting
    /// (``SyncServerLimits/retryAfter``), for every answer that asks for a retry.
    var asksRetry = false
    /// The answer says `Connection: close`.
    var closes = false

    static func unauthorized(_ message: String) -> Self { .init(status: .unauthorized, description: message) }
    static func badRequest(_ message: String) -> Self { .init(status: .badRequest, description: message) }
    static func conflict(_ code: SyncErrorBody.Code, _ message: String) -> Self {
        .init(status: .conflict, description: message, code: code)
    }
    static let unavailable = Self(status: .serviceUnavailable,
                                  description: "the database is unavailable (PostgreSQL does not answer); try again later",
                                  asksRetry: true)
    static func tooManyRequests(_ message: String) -> Self {
        .init(status: .tooManyRequests, description: message, asksRetry: true)
    }
    static func contentTooLarge(_ message: String) -> Self { .init(status: .contentTooLarge, description: message) }
    static let tooLarge = Self(status: .contentTooLarge,
                               description: "the request body is larger than \(SyncProtocol.maxBodyBytes) bytes (SyncProtocol.maxBodyBytes)")
}
