import Foundation

/// One-shot events the app emits (not stored in state).
enum AppEvent: Equatable, Sendable {
    case status(String)
    case error(String)
}
