import Foundation

/// One-shot events the app emits (not stored in state).
public enum AppEvent: Equatable, Sendable {
    case status(String)
    case error(String)
}
