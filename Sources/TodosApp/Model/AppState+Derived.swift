import Foundation

// Derived state, exposed as computed properties so that reducers, views and tests read
// `state.visibleItems` as before. The items of each list (and of each list split into
// active and done) are `EntityIndex`es, kept up to date from the items' changes: a toggle
// moves one id between two groups, a cursor move changes nothing. The rest is `Derived`
// (memoized: recomputed only when an input changed).

extension AppState {
    /// The list shown on the item screen: the selected one, else the first.
    var currentList: TodoList? {
        if let id = ui.currentListID, let list = lists[id] { return list }
        return lists.first
    }

    /// Items of `listID` in their stored order.
    func items(inList listID: UUID) -> [TodoItem] {
        (Self.itemIDsByList(self)[listID] ?? []).compactMap { items[$0] }
    }

    /// The tags of `itemID`, in the order they were attached.
    func tags(of itemID: UUID) -> [Tag] {
        Self.tagsByItem(self)[itemID] ?? []
    }

    /// The tag named `name` (case-insensitive), if any.
    func tag(named name: String) -> Tag? {
        tags.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The list named `name`, if any: names compare by ``ListName/key(_:)`` (cleaned, case-insensitive).
    func list(named name: String) -> TodoList? {
        let key = ListName.key(name)
        return lists.first { ListName.key($0.name) == key }
    }

    /// The items the item screen shows: current list, filter, then search query
    /// (matching title or tag names, case- and diacritic-insensitive).
    var visibleItems: [TodoItem] { Self.visibleItemValues(self) }

    /// The ids of ``visibleItems``, in order: what the item screen and the cursor read (a
    /// key reads the entities of the rows on screen only). Without a search query, a group
    /// of the indexes as it is (no copy, no pass over the items).
    var visibleIDs: [UUID] {
        ui.searchQuery.trimmingCharacters(in: .whitespaces).isEmpty ? filteredIDs : Self.searchResults(self)
    }

    /// Counts for the current list: total, active, completed (sizes of index groups).
    var counts: (total: Int, active: Int, completed: Int) {
        guard let listID = currentList?.id else { return (0, 0, 0) }
        let groups = Self.itemIDsByListAndDone(self)
        let active = groups[ListAndDone(listID: listID, isDone: false)]?.count ?? 0
        let done = groups[ListAndDone(listID: listID, isDone: true)]?.count ?? 0
        return (active + done, active, done)
    }

    /// The highlighted item if it is visible, else the first visible item.
    var selectedItem: TodoItem? {
        guard let index = selectedIndex else { return nil }
        return items[visibleIDs[index]]
    }

    /// The index of the highlighted item among ``visibleIDs`` (and ``visibleItems``).
    var selectedIndex: Int? { Self.selection(self) }

    /// Total and done items of every list (sizes of index groups).
    var countsByList: [UUID: ItemCounts] {
        var counts: [UUID: ItemCounts] = [:]
        for (key, ids) in Self.itemIDsByListAndDone(self) {
            counts[key.listID, default: ItemCounts()].add(ItemCounts(total: ids.count, done: key.isDone ? ids.count : 0))
        }
        return counts
    }

    static func matches(_ text: String, _ query: String) -> Bool {
        text.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }
}

/// How many items a list holds, and how many of them are done.
struct ItemCounts: Equatable, Sendable {
    var total = 0
    var done = 0

    mutating func add(_ other: ItemCounts) {
        total += other.total
        done += other.done
    }
}

extension AppState {
    /// A list and whether its items are done: the key of ``itemIDsByListAndDone``.
    struct ListAndDone: Hashable, Sendable {
        let listID: UUID
        let isDone: Bool
    }

    /// The item ids of each list, in stored order; kept up to date from the items' changes
    /// (a toggle or a new title moves nothing; an added item is appended to its list).
    static let itemIDsByList = EntityIndex(\AppState.items) { $0.listID }

    /// The item ids of each list split into active and done, in stored order (a toggle
    /// moves one id from one group to the other).
    static let itemIDsByListAndDone = EntityIndex(\AppState.items) { ListAndDone(listID: $0.listID, isDone: $0.isDone) }

    /// The ids the filter keeps in the current list, before the search query: a group of
    /// the indexes.
    var filteredIDs: [UUID] {
        guard let listID = currentList?.id else { return [] }
        switch ui.filter {
        case .all: return Self.itemIDsByList(self)[listID] ?? []
        case .active: return Self.itemIDsByListAndDone(self)[ListAndDone(listID: listID, isDone: false)] ?? []
        case .completed: return Self.itemIDsByListAndDone(self)[ListAndDone(listID: listID, isDone: true)] ?? []
        }
    }

    /// ``visibleIDs`` while searching: the filtered ids whose title or a tag name matches
    /// the query (case- and diacritic-insensitive). Recomputed when the filtered ids, the
    /// query, the items or the tags change.
    static let searchResults = Derived(
        \AppState.filteredIDs, \.ui.searchQuery, \.items, \.tags, \.itemTags
    ) { ids, searchQuery, items, tags, itemTags -> [UUID] in
        let query = searchQuery.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { return ids }
        // Tag names per item, built once (not per item).
        var tagNames: [UUID: [String]] = [:]
        for link in itemTags { if let tag = tags[link.tagID] { tagNames[link.itemID, default: []].append(tag.name) } }
        return ids.filter { id in
            guard let item = items[id] else { return false }
            return matches(item.title, query) || (tagNames[id]?.contains { matches($0, query) } ?? false)
        }
    }

    /// ``selectedIndex``: the position of the highlighted item among the visible ones
    /// (found once per change of either), else 0; `nil` when nothing is visible. An
    /// unchanged group compares in O(1) (same storage).
    static let selection = Derived(\AppState.visibleIDs, \.ui.selectedItemID) { visible, id -> Int? in
        guard !visible.isEmpty else { return nil }
        if let id, let index = visible.firstIndex(of: id) { return index }
        return 0
    }

    /// ``visibleItems``: the entities of ``visibleIDs`` (computed when read, not by a key).
    static let visibleItemValues = Derived(\AppState.visibleIDs, \.items) { visible, items -> [TodoItem] in
        visible.compactMap { items[$0] }
    }

    /// ``tags(of:)``: the tags of every tagged item, in the order they were attached.
    static let tagsByItem = Derived(\AppState.itemTags, \.tags) { itemTags, tags -> [UUID: [Tag]] in
        var result: [UUID: [Tag]] = [:]
        for link in itemTags { if let tag = tags[link.tagID] { result[link.itemID, default: []].append(tag) } }
        return result
    }
}
