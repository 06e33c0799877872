import Foundation
import SwiduxSQLite
import SwiduxTesting
import Testing

@MainActor @Test func addingATodoWritesItToTheDatabase() async throws {
    let database = try SwiduxDatabase.inMemory(migrations: TodoDatabase.migrations)
    var state = TodoState()
    let persistence = try database.persistence(
        hydrating: &state, [.entities(\.todos, in: TodoDatabase.todos)], clock: TestClock())
    let id = UUID()
    let store = TestStore(
        initialState: state, reducer: TodoReducer(),
        environment: TodoEnvironment(uuid: { id }), persistence: persistence)

    await store.send(.setDraft("Buy milk")) { $0.draft = "Buy milk" }
    await store.send(.add) {
        $0.todos[id] = Todo(id: id, title: "Buy milk")
        $0.draft = ""
    }
    await store.closePersistenceWindow()   // the 250 ms window closes, the flush is written
    #expect(try await database.hydrate(TodoDatabase.todos).values == [Todo(id: id, title: "Buy milk")])
    await store.finish()
}
