import Foundation

/// Adds, edits, toggles, deletes, reorders and clears items.
struct ItemsReducer: SwiduxReducer {
    init() {}

    /// Why an item titled `title` with `tags` is refused (empty title, over a limit, an
    /// invalid tag), or `nil`. Checked by the input line before it closes, too, so that a
    /// refused text stays there for editing.
    static func refusal(title raw: String, tags tagNames: [String]) -> String? {
        let title = Limits.clean(raw)
        guard !title.isEmpty else {
            let tags = tagNames.map { "#" + $0 }.joined(separator: " ")
            return tags.isEmpty ? "A title can't be empty" : "A title can't be empty (tags alone: \(tags))"
        }
        if let excess = Limits.excess(title, max: Limits.title, what: "A title") { return excess }
        for name in tagNames {
            if case .failure(let error) = TagsReducer.validate(name) { return error.description.capitalizedFirst }
        }
        return nil
    }

    func reduce(state: inout AppState, action: ItemsAction, environment: AppEnvironment) -> Effect<AppAction>? {
        switch action {
        case let .add(id, listID, title, tagNames):
            let title = Limits.clean(title)
            if let refusal = Self.refusal(title: title, tags: []) { return environment.event(.error(refusal)) }
            guard state.lists.contains(listID) else { return environment.event(.error("No such list")) }
            if let refusal = Self.refusal(title: title, tags: tagNames) { return environment.event(.error(refusal)) }
            state.items[id] = TodoItem(id: id, listID: listID, title: title, createdAt: environment.now())
            for name in tagNames {
                TagsReducer.attach(name: name, to: id, newTagID: environment.uuid(), state: &state)
            }
            state.ui.selectedItemID = id
            return environment.status("Added “\(title)”")

        case let .setTitle(id, title):
            let title = Limits.clean(title)
            guard !title.isEmpty else { return environment.event(.error("A title can't be empty")) }
            if let excess = Limits.excess(title, max: Limits.title, what: "A title") { return environment.event(.error(excess)) }
            state.items.modify(id) { $0.title = title }
            return nil

        case let .toggle(id):
            state.items.modify(id) { $0.isDone.toggle() }
            return nil

        case let .setDone(id, done):
            state.items.modify(id) { $0.isDone = done }
            return nil

        case let .delete(id):
            guard let item = state.items[id] else { return nil }
            Self.moveSelectionOff([id], state: &state)
            state.itemTags.removeAll { $0.itemID == id }
            state.items[id] = nil
            return environment.status("Deleted “\(item.title)” (u: undo)")

        case let .move(id, offset):
            guard let item = state.items[id], offset != 0 else { return nil }
            let siblings = state.items.indices.filter { state.items[$0].listID == item.listID }
            guard let from = siblings.firstIndex(where: { state.items[$0].id == id }) else { return nil }
            let to = min(max(from + offset, 0), siblings.count - 1)
            guard to != from else { return nil }
            let source = siblings[from], target = siblings[to]
            // SwiftUI onMove semantics: the destination is the index before which to insert.
            state.items.move(fromOffsets: IndexSet(integer: source), toOffset: to > from ? target + 1 : target)
            return nil

        case let .refreshed(item):
            // Hydration-style merge: records nothing, so nothing is written back.
            guard state.items[item.id] != nil else { return nil }
            state.items.merge(from: EntityStore([item])) { _, _ in true }
            return nil

        case let .clearCompleted(listID):
            let done = Set(state.items.filter { $0.listID == listID && $0.isDone }.map(\.id))
            guard !done.isEmpty else { return environment.status("Nothing to clear") }
            Self.moveSelectionOff(done, state: &state)
            state.itemTags.removeAll { done.contains($0.itemID) }
            state.items.removeAll { done.contains($0.id) }
            return environment.status("Cleared \(done.count) completed item\(done.count == 1 ? "" : "s")")
        }
    }

    /// Moves the highlight to a neighbour that survives when the highlighted item goes away.
    static func moveSelectionOff(_ removed: some Collection<UUID>, state: inout AppState) {
        guard let selected = state.selectedItem, removed.contains(selected.id) else { return }
        let visible = state.visibleIDs
        guard let index = state.selectedIndex, visible[index] == selected.id else { return }
        let after = visible[(index + 1)...].first { !removed.contains($0) }
        let before = visible[..<index].last { !removed.contains($0) }
        state.ui.selectedItemID = after ?? before
    }
}
