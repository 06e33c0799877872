import Foundation

/// Which items the item screen shows.
enum ItemFilter: String, CaseIterable, Equatable, Sendable, Codable {
    case all, active, completed

    /// The next filter in the cycle all → active → completed → all.
    var next: ItemFilter {
        switch self {
        case .all: .active
        case .active: .completed
        case .completed: .all
        }
    }
}
