import Foundation

/// The screens of the terminal UI (navigation lives in state).
public enum AppScreen: Equatable, Sendable, Codable {
    case items, lists, help
}
