import Foundation

/// Which items the item screen shows.
public enum ItemFilter: String, CaseIterable, Equatable, Sendable, Codable {
    case all, active, completed

    /// The next filter in the cycle all → active → completed → all.
    public var next: ItemFilter {
        switch self {
        case .all: .active
        case .active: .completed
        case .completed: .all
        }
    }
}
