import Foundation

extension AppState {
    /// The list shown on the item screen: the selected one, else the first.
    public var currentList: TodoList? {
        if let id = ui.currentListID, let list = lists[id] { return list }
        return lists.first
    }

    /// Items of `listID` in their stored order.
    public func items(inList listID: UUID) -> [TodoItem] {
        items.filter { $0.listID == listID }
    }

    /// The tags of `itemID`, in the order they were attached.
    public func tags(of itemID: UUID) -> [Tag] {
        itemTags.compactMap { $0.itemID == itemID ? tags[$0.tagID] : nil }
    }

    /// The tag named `name` (case-insensitive), if any.
    public func tag(named name: String) -> Tag? {
        tags.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The list named `name`, if any: names compare by ``ListName/key(_:)`` (cleaned, case-insensitive).
    public func list(named name: String) -> TodoList? {
        let key = ListName.key(name)
        return lists.first { ListName.key($0.name) == key }
    }

    /// The items the item screen shows: current list, filter, then search query
    /// (matching title or tag names, case- and diacritic-insensitive).
    public var visibleItems: [TodoItem] {
        guard let list = currentList else { return [] }
        let query = ui.searchQuery.trimmingCharacters(in: .whitespaces)
        // Tag names per item, built once (not per item) when a query needs them.
        var tagNames: [UUID: [String]] = [:]
        if !query.isEmpty {
            for link in itemTags { if let tag = tags[link.tagID] { tagNames[link.itemID, default: []].append(tag.name) } }
        }
        return items.filter { item in
            guard item.listID == list.id else { return false }
            switch ui.filter {
            case .all: break
            case .active: if item.isDone { return false }
            case .completed: if !item.isDone { return false }
            }
            guard !query.isEmpty else { return true }
            if Self.matches(item.title, query) { return true }
            return tagNames[item.id]?.contains { Self.matches($0, query) } ?? false
        }
    }

    static func matches(_ text: String, _ query: String) -> Bool {
        text.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }

    /// Counts for the current list: total, active, completed.
    public var counts: (total: Int, active: Int, completed: Int) {
        guard let list = currentList else { return (0, 0, 0) }
        var total = 0, done = 0
        for item in items where item.listID == list.id {
            total += 1
            if item.isDone { done += 1 }
        }
        return (total, total - done, done)
    }

    /// The highlighted item if it is visible, else the first visible item.
    public var selectedItem: TodoItem? {
        let visible = visibleItems
        if let id = ui.selectedItemID, let item = visible.first(where: { $0.id == id }) { return item }
        return visible.first
    }

    /// The index of the highlighted item among ``visibleItems``.
    public var selectedIndex: Int? {
        let visible = visibleItems
        guard !visible.isEmpty else { return nil }
        if let id = ui.selectedItemID, let index = visible.firstIndex(where: { $0.id == id }) { return index }
        return 0
    }
}
