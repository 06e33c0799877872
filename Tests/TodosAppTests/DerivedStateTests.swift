import Foundation
import Testing
@testable import TodosApp
import SwiduxTesting

/// The app's memoized derived state (visible items, counts, selection, items by list, tag
/// lookups) equals a direct recomputation from the state after every step of random
/// action sequences (seeded; `SWIDUX_DERIVED_STEPS` steps per seed, default 300).
@Suite struct DerivedStateTests {
    /// The derived values recomputed directly, as the computed properties did before.
    struct Expected: Equatable {
        var visible: [TodoItem]
        var counts: [Int]
        var selectedIndex: Int?
        var selectedItem: TodoItem?
        var byList: [UUID: [TodoItem]]
        var countsByList: [UUID: ItemCounts]
        var tags: [UUID: [TodosApp.Tag]]

        init(_ state: AppState) {
            let list = state.currentList
            let query = state.ui.searchQuery.trimmingCharacters(in: .whitespaces)
            func tagsOf(_ id: UUID) -> [TodosApp.Tag] { state.itemTags.compactMap { $0.itemID == id ? state.tags[$0.tagID] : nil } }
            let visible = state.items.filter { item in
                guard item.listID == list?.id else { return false }
                switch state.ui.filter {
                case .all: break
                case .active: if item.isDone { return false }
                case .completed: if !item.isDone { return false }
                }
                guard !query.isEmpty else { return true }
                return AppState.matches(item.title, query) || tagsOf(item.id).contains { AppState.matches($0.name, query) }
            }
            let inList = state.items.filter { $0.listID == list?.id }
            let done = inList.filter(\.isDone).count
            let index: Int? = visible.isEmpty ? nil : (visible.firstIndex { $0.id == state.ui.selectedItemID } ?? 0)
            let groups = Dictionary(grouping: state.items, by: \.listID)
            self.visible = visible
            counts = list == nil ? [0, 0, 0] : [inList.count, inList.count - done, done]
            selectedIndex = index
            selectedItem = index.map { visible[$0] }
            byList = groups
            countsByList = groups.mapValues { ItemCounts(total: $0.count, done: $0.filter(\.isDone).count) }
            tags = Dictionary(uniqueKeysWithValues: state.items.map { ($0.id, tagsOf($0.id)) }.filter { !$0.1.isEmpty })
        }

        static func actual(_ state: AppState) -> Expected {
            var result = Expected(AppState())
            result.visible = state.visibleItems
            let counts = state.counts
            result.counts = [counts.total, counts.active, counts.completed]
            result.selectedIndex = state.selectedIndex
            result.selectedItem = state.selectedItem
            result.byList = Dictionary(uniqueKeysWithValues: state.lists.map { ($0.id, state.items(inList: $0.id)) }.filter { !$0.1.isEmpty })
            result.countsByList = state.countsByList
            result.tags = Dictionary(uniqueKeysWithValues: state.items.map { ($0.id, state.tags(of: $0.id)) }.filter { !$0.1.isEmpty })
            return result
        }
    }

    static let steps = ProcessInfo.processInfo.environment["SWIDUX_DERIVED_STEPS"].flatMap(Int.init) ?? 300

    @Test(arguments: [1, 2, 3])
    func derivedStateEqualsRecomputationAfterRandomActions(seed: UInt64) {
        var random = SeededRandomNumberGenerator(seed: seed)
        var state = sampleState()
        let environment = testEnvironment()
        let titles = ["Buy milk", "buy bread", "Café", "report", "Milk shake", "x"]
        let tagNames = ["shop", "work", "café"]
        for step in 0..<Self.steps {
            let itemIDs = state.items.ids, listIDs = state.lists.ids
            let anyItem = itemIDs.isEmpty ? uuid(999) : itemIDs[Int(random.next() % UInt64(itemIDs.count))]
            let anyList = listIDs.isEmpty ? uuid(998) : listIDs[Int(random.next() % UInt64(listIDs.count))]
            let pick = { (values: [String]) in values[Int(random.next() % UInt64(values.count))] }
            let action: AppAction
            switch random.next() % 16 {
            case 0, 1: action = .items(.add(id: uuid(10_000 + step), listID: anyList, title: pick(titles), tags: random.next() % 3 == 0 ? [pick(tagNames)] : []))
            case 2: action = .items(.toggle(id: anyItem))
            case 3: action = .items(.setTitle(id: anyItem, title: pick(titles)))
            case 4: action = .items(.delete(id: anyItem))
            case 5: action = .items(.move(id: anyItem, offset: random.next() % 2 == 0 ? 1 : -2))
            case 6: action = .items(.clearCompleted(listID: anyList))
            case 7: action = .tags(.add(itemID: anyItem, name: pick(tagNames), tagID: uuid(20_000 + step)))
            case 8: action = .tags(.clear(itemID: anyItem))
            case 9: action = .ui(.moveCursor(random.next() % 2 == 0 ? 1 : -1))
            case 10: action = .ui(.cycleFilter)
            case 11: action = .search(.apply(random.next() % 2 == 0 ? "" : pick(["milk", "CAFE", "shop", "r"])))
            case 12: action = .lists(.select(id: anyList))
            case 13: action = random.next() % 4 == 0 ? .lists(.add(id: uuid(30_000 + step), name: "List \(step)")) : .ui(.selectItem(anyItem))
            case 14: action = random.next() % 6 == 0 ? .lists(.delete(id: anyList)) : .lists(.rename(id: anyList, name: "Renamed \(step)"))
            default: action = .ui(.moveCursor(2))
            }
            state.apply(action, environment)
            let actual = Expected.actual(state)
            let expected = Expected(state)
            #expect(actual == expected, "seed \(seed), step \(step): \(action)")
            if actual != expected { return }
        }
    }
}
