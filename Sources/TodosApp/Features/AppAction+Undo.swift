import Foundation

extension AppAction: UndoableAction {
    /// Domain actions are undo steps; search, navigation and selection are not.
    var undoPolicy: UndoPolicy {
        switch self {
        case .lists(.select), .items(.refreshed): .skip
        case .lists, .items, .tags: .record
        case .search, .ui: .skip
        }
    }
}
