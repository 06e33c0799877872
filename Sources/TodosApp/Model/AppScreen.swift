import Foundation

/// The screens of the terminal UI (navigation lives in state).
enum AppScreen: Equatable, Sendable, Codable {
    case items, lists, help
}
