import Foundation

/// Which actions would change a list this user may not change: one shared with them
/// read-only, or one whose sharing with them ended (kept on the device, read-only). The UI
/// refuses those with a status message instead of making an edit no server would take.
struct ReadOnlyLists {
    /// The shared lists, each with whether the user may change it (``AppDatabase/sharedLists()``).
    var shared: [UUID: Bool] = [:]

    /// The read-only list `action` would change, or nil.
    func list(changedBy action: AppAction, in state: AppState) -> UUID? {
        let list: UUID?
        switch action {
        case .items(.add(_, let listID, _, _)), .items(.clearCompleted(let listID)):
            list = listID
        case .items(.setTitle(let id, _)), .items(.toggle(let id)), .items(.setDone(let id, _)), .items(.delete(let id)),
             .items(.move(let id, _)):
            list = state.items[id]?.listID
        case .lists(.rename(let id, _)), .lists(.delete(let id)):
            list = id
        default:
            // Tags are the user's own (their links too), and so is what the screen shows.
            list = nil
        }
        guard let list, shared[list] == false else { return nil }
        return list
    }
}
