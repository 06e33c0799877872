import Foundation

/// Creates, renames, deletes and selects lists.
struct ListsReducer: SwiduxReducer {
    init() {}

    /// Why a name is refused because `existing` has it: the existing list's name as shown
    /// (names match whatever their case), not the text typed.
    static func taken(by existing: TodoList) -> String { "A list named “\(existing.name)” exists" }

    /// Why `raw` is refused as the name of a new list (`renaming: nil`) or of the list
    /// `renaming`, or `nil`.
    static func refusal(name raw: String, renaming id: UUID?, state: AppState) -> String? {
        switch ListName.validate(raw) {
        case .failure(let error): return error.description.capitalizedFirst
        case .success(let name):
            if let other = state.list(named: name), other.id != id { return taken(by: other) }
            return nil
        }
    }

    func reduce(state: inout AppState, action: ListsAction, environment: AppEnvironment) -> Effect<AppAction>? {
        switch action {
        case let .add(id, raw):
            let name: String
            switch ListName.validate(raw) {
            case .success(let valid): name = valid
            case .failure(let error): return environment.event(.error(error.description.capitalizedFirst))
            }
            if let existing = state.list(named: name) { return environment.event(.error(Self.taken(by: existing))) }
            state.lists[id] = TodoList(id: id, name: name)
            state.ui.currentListID = id
            state.ui.listCursor = state.lists.count - 1
            return environment.status("Created list “\(name)”")

        case let .rename(id, raw):
            let name: String
            switch ListName.validate(raw) {
            case .success(let valid): name = valid
            case .failure(let error): return environment.event(.error(error.description.capitalizedFirst))
            }
            if let other = state.list(named: name), other.id != id {
                return environment.event(.error(Self.taken(by: other)))
            }
            state.lists.modify(id) { $0.name = name }
            return nil

        case let .delete(id):
            guard let list = state.lists[id] else { return nil }
            let itemIDs = Set(state.items.filter { $0.listID == id }.map(\.id))
            let tagIDs = state.itemTags.filter { itemIDs.contains($0.itemID) }.map(\.tagID)
            state.itemTags.removeAll { itemIDs.contains($0.itemID) }
            TagsReducer.dropUnused(tagIDs, state: &state)
            state.items.removeAll { itemIDs.contains($0.id) }
            state.lists[id] = nil
            if state.ui.currentListID == id { state.ui.currentListID = state.lists.first?.id }
            state.ui.listCursor = min(state.ui.listCursor, max(state.lists.count - 1, 0))
            return environment.status("Deleted list “\(list.name)” and \(itemIDs.count) item\(itemIDs.count == 1 ? "" : "s") (u: undo)")

        case let .select(id):
            guard state.lists.contains(id) else { return nil }
            state.ui.currentListID = id
            state.ui.selectedItemID = nil
            if let index = state.lists.firstIndex(where: { $0.id == id }) { state.ui.listCursor = index }
            return nil
        }
    }
}
