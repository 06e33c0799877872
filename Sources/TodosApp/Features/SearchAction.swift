import Foundation

/// Search as you type (``SearchReducer``).
enum SearchAction: Equatable, Sendable, Codable {
    /// The search text as typed; the query applies after a debounce.
    case textChanged(String)
    /// The debounced query takes effect.
    case apply(String)
    case clear
}
