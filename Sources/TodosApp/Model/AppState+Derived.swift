import Foundation

// Derived state: declared once from its inputs with `Derived` (memoized: recomputed only
// when an input changed), exposed as computed properties so that reducers, views and
// tests read `state.visibleItems` as before. A key to move the cursor changes
// `ui.selectedItemID` only: every list below is then the remembered one.

extension AppState {
    /// The list shown on the item screen: the selected one, else the first.
    public var currentList: TodoList? {
        if let id = ui.currentListID, let list = lists[id] { return list }
        return lists.first
    }

    /// Items of `listID` in their stored order.
    public func items(inList listID: UUID) -> [TodoItem] {
        Self.itemsByList(self)[listID] ?? []
    }

    /// The tags of `itemID`, in the order they were attached.
    public func tags(of itemID: UUID) -> [Tag] {
        Self.tagsByItem(self)[itemID] ?? []
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
    public var visibleItems: [TodoItem] { Self.visibleItemValues(self) }

    /// The ids of ``visibleItems``, in order: what the item screen and the cursor read (a
    /// key reads the entities of the rows on screen only).
    public var visibleIDs: [UUID] { Self.itemScreen(self).visible }

    /// Counts for the current list: total, active, completed.
    public var counts: (total: Int, active: Int, completed: Int) {
        let counts = Self.itemScreen(self).counts
        return (counts.total, counts.total - counts.done, counts.done)
    }

    /// The highlighted item if it is visible, else the first visible item.
    public var selectedItem: TodoItem? {
        guard let index = selectedIndex else { return nil }
        return items[visibleIDs[index]]
    }

    /// The index of the highlighted item among ``visibleIDs`` (and ``visibleItems``).
    public var selectedIndex: Int? { Self.selection(self) }

    /// Total and done items of every list.
    public var countsByList: [UUID: ItemCounts] { Self.listCounts(self) }

    static func matches(_ text: String, _ query: String) -> Bool {
        text.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }
}

/// How many items a list holds, and how many of them are done.
public struct ItemCounts: Equatable, Sendable {
    public var total = 0
    public var done = 0

    mutating func add(_ other: ItemCounts) {
        total += other.total
        done += other.done
    }
}

extension AppState {
    /// ``visibleItems`` and ``counts``, in one pass over the items: recomputed when the
    /// items, the current list, the filter, the search query or (for the query) tags
    /// change; not when the cursor moves.
    static let itemScreen = Derived(
        \AppState.items, \.currentList?.id, \.ui.filter, \.ui.searchQuery, \.tags, \.itemTags
    ) { items, listID, filter, searchQuery, tags, itemTags -> ItemScreen in
        guard let listID else { return ItemScreen() }
        let query = searchQuery.trimmingCharacters(in: .whitespaces)
        // Tag names per item, built once (not per item) when a query needs them.
        var tagNames: [UUID: [String]] = [:]
        if !query.isEmpty {
            for link in itemTags { if let tag = tags[link.tagID] { tagNames[link.itemID, default: []].append(tag.name) } }
        }
        var visible: [UUID] = []
        var counts = ItemCounts()
        if filter == .all, query.isEmpty { visible.reserveCapacity(items.count) }
        // Ids, not entities: no copy of the items, nothing to release when replaced.
        for item in items where item.listID == listID {
            counts.total += 1
            if item.isDone { counts.done += 1 }
            switch filter {
            case .all: break
            case .active: if item.isDone { continue }
            case .completed: if !item.isDone { continue }
            }
            if !query.isEmpty, !matches(item.title, query), !(tagNames[item.id]?.contains { matches($0, query) } ?? false) {
                continue
            }
            visible.append(item.id)
        }
        return ItemScreen(visible: visible, counts: counts)
    }

    /// What the item screen lists, and the counts of the current list. A class: a derived
    /// value that takes it as an input compares it by identity, in O(1) (an array of
    /// 100,000 ids would be compared element by element).
    final class ItemScreen: Sendable {
        let visible: [UUID]
        let counts: ItemCounts
        init(visible: [UUID] = [], counts: ItemCounts = ItemCounts()) {
            self.visible = visible
            self.counts = counts
        }
    }

    /// The memoized ``ItemScreen`` (an input of ``selection``).
    var currentItemScreen: ItemScreen { Self.itemScreen(self) }

    /// ``selectedIndex``: the position of the highlighted item among the visible ones
    /// (found once per change of either), else 0; `nil` when nothing is visible.
    static let selection = Derived(\AppState.currentItemScreen, \.ui.selectedItemID) { screen, id -> Int? in
        let visible = screen.visible
        guard !visible.isEmpty else { return nil }
        if let id, let index = visible.firstIndex(of: id) { return index }
        return 0
    }

    /// ``visibleItems``: the entities of ``visibleIDs`` (computed when read, not by a key).
    static let visibleItemValues = Derived(\AppState.currentItemScreen, \.items) { screen, items -> [TodoItem] in
        screen.visible.compactMap { items[$0] }
    }

    /// ``countsByList``: one pass over the items when they change.
    static let listCounts = Derived(\AppState.items) { items -> [UUID: ItemCounts] in
        var counts: [UUID: ItemCounts] = [:]
        // Items of one list mostly follow each other: count a run, then add it (one
        // dictionary access per run, not per item).
        var run: (list: UUID, counts: ItemCounts)?
        for item in items {
            if run?.list != item.listID {
                if let run { counts[run.list, default: ItemCounts()].add(run.counts) }
                run = (item.listID, ItemCounts())
            }
            run!.counts.total += 1
            if item.isDone { run!.counts.done += 1 }
        }
        if let run { counts[run.list, default: ItemCounts()].add(run.counts) }
        return counts
    }

    /// ``items(inList:)``: the items grouped by list, in stored order.
    static let itemsByList = Derived(\AppState.items) { items -> [UUID: [TodoItem]] in
        var groups: [UUID: [TodoItem]] = [:]
        for item in items { groups[item.listID, default: []].append(item) }
        return groups
    }

    /// ``tags(of:)``: the tags of every tagged item, in the order they were attached.
    static let tagsByItem = Derived(\AppState.itemTags, \.tags) { itemTags, tags -> [UUID: [Tag]] in
        var result: [UUID: [Tag]] = [:]
        for link in itemTags { if let tag = tags[link.tagID] { result[link.itemID, default: []].append(tag) } }
        return result
    }
}
