import Foundation
import GRDB
import SwiduxSQLite

// The schema of the many-writers model test: lists → items → tags, each reference
// `ON DELETE CASCADE`, as an app such as `todos` has it.

struct MWList: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "mwList"
    var id: Int
    var name: String
}

struct MWItem: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "mwItem"
    var id: Int
    var listId: Int
    var title: String
    var done: Bool
}

struct MWTag: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "mwTag"
    var id: Int
    var itemId: Int
    var name: String
}

struct MWState: Equatable, Sendable {
    var lists = EntityStore<MWList>()
    var items = EntityStore<MWItem>()
    var tags = EntityStore<MWTag>()
    var ui = 0   // not persisted, not undoable
}

enum MWAction: Equatable, Sendable {
    case addList(Int)
    case renameList(Int, String)
    case deleteList(Int)
    case addItem(Int, list: Int)
    case editItem(Int, String)
    case toggle(Int)
    case deleteItem(Int)
    case addTag(Int, item: Int)
    case deleteTag(Int)
    case ui
}

/// The app's reducer: deleting a list deletes its items and their tags in the state too (the
/// file's cascade does the same for rows the store does not hold).
struct MWReducer: SwiduxReducer {
    func reduce(state: inout MWState, action: MWAction, environment: Void) -> Effect<MWAction>? {
        switch action {
        case .addList(let id):
            state.lists[id] = MWList(id: id, name: "list \(id)")
        case .renameList(let id, let name):
            state.lists.modify(id) { $0.name = name }
        case .deleteList(let id):
            state.lists[id] = nil
            let items = Set(state.items.values.filter { $0.listId == id }.map(\.id))
            state.tags.removeAll { items.contains($0.itemId) }
            state.items.removeAll { items.contains($0.id) }
        case .addItem(let id, let list):
            guard state.lists[list] != nil else { return nil }
            state.items[id] = MWItem(id: id, listId: list, title: "item \(id)", done: false)
        case .editItem(let id, let title):
            state.items.modify(id) { $0.title = title }
        case .toggle(let id):
            state.items.modify(id) { $0.done.toggle() }
        case .deleteItem(let id):
            state.items[id] = nil
            state.tags.removeAll { $0.itemId == id }
        case .addTag(let id, let item):
            guard state.items[item] != nil else { return nil }
            state.tags[id] = MWTag(id: id, itemId: item, name: "tag \(id)")
        case .deleteTag(let id):
            state.tags[id] = nil
        case .ui:
            state.ui += 1
        }
        return nil
    }
}

enum MWSchema {
    static let lists = EntityTable(recordsOf: MWList.self)
    static let items = EntityTable(recordsOf: MWItem.self)
    static let tags = EntityTable(recordsOf: MWTag.self)

    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.create(table: "mwList") { t in
                t.primaryKey("id", .integer)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
            }
            try db.create(table: "mwItem") { t in
                t.primaryKey("id", .integer)
                t.entityPositionColumn()
                t.column("listId", .integer).notNull().indexed().references("mwList", onDelete: .cascade)
                t.column("title", .text).notNull()
                t.column("done", .boolean).notNull()
            }
            try db.create(table: "mwTag") { t in
                t.primaryKey("id", .integer)
                t.entityPositionColumn()
                t.column("itemId", .integer).notNull().indexed().references("mwItem", onDelete: .cascade)
                t.column("name", .text).notNull()
            }
        }
    }

    /// Children first, as `persistence(hydrating:_:)` recommends for cascades.
    static func persisted() -> [PersistedEntities<MWState>] {
        [.entities(\.tags, in: tags), .entities(\.items, in: items), .entities(\.lists, in: lists)]
    }
}
