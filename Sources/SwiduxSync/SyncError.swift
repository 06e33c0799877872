import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a sync round failed. Nothing local is lost by a failure: pending changes stay in
/// the outbox and are sent again by the next round.
///
/// ```swift
/// do {
///     try await client.sync()
/// } catch let error as SyncError {
///     print(error)   // e.g. "cannot reach the sync server at http://127.0.0.1:8080/: …"
/// }
/// ```
public enum SyncError: Error, CustomStringConvertible {
    /// The server answered 401: the token is missing, wrong, revoked or expired; with the
    /// server's reason (empty when it gave none).
    case unauthorized(String)
    /// No HTTP answer: connection refused, timeout, name resolution, …
    case unreachable(URL, underlying: any Error)
    /// The server answered an error status other than 401, with its message.
    case rejected(status: Int, message: String)
    /// Reading or writing the local database failed.
    case local(any Error)

    /// One sentence naming the cause.
    ///
    /// ```swift
    /// SyncError.unauthorized("unknown or revoked token").description
    /// // "the sync server refused the token: unknown or revoked token"
    /// ```
    public var description: String {
        switch self {
        case .unauthorized(let reason) where reason.isEmpty: "the sync server refused the token"
        case .unauthorized(let reason): "the sync server refused the token: \(reason)"
        case .unreachable(let url, let underlying): "cannot reach the sync server at \(url.absoluteString): \(Self.reason(underlying))"
        case .rejected(let status, let message) where message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty:
            // No message: most often not a sync server at all, or a path added to its URL.
            status == 404
                ? "the sync server answered 404 (not found) with no message: give the server's base URL (http://host:port), with no path"
                : "the sync server answered \(status) with no message"
        case .rejected(let status, let message): "the sync server answered \(status): \(message)"
        case .local(let error): "the local database failed during sync: \(error)"
        }
    }

    /// One phrase for a network failure (not Foundation's error dump).
    private static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPFailure { return error.description }
        if let error = error as? URLError {
            switch error.code {
            case .cannotConnectToHost: return "connection refused"
            case .timedOut: return "no answer within the time limit"
            case .cannotFindHost, .dnsLookupFailed: return "unknown host"
            case .networkConnectionLost: return "the connection was lost"
            case .notConnectedToInternet: return "no network connection"
            case .cancelled: return "cancelled"
            case .badServerResponse: return "an answer that is not HTTP"
            default: return "network error \(error.code.rawValue)"
            }
        }
        let error = error as NSError
        if error.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: error.code) as URLError.Code? { return reason(URLError(code)) }
        return error.localizedDescription
    }
}
