@_exported import SwiduxTesting

// What MigratingFromTCA.md's Swidux fragments assume: the README's to-do and database, a
// database, an id.
struct Todo: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var title: String
    var done = false
}

enum TodoDatabase {
    static let todos = EntityTable<Todo>(named: "todo")
}

struct SnippetContext {
    let database: SwiduxDatabase
    let id: UUID
}
