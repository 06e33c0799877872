import SwiduxTesting
import Testing

@Suite struct InMemoryBackendTests {
    let milk = Todo(id: 1, title: "Milk")
    let eggs = Todo(id: 2, title: "Eggs")
    let bread = Todo(id: 3, title: "Bread")

    @Test func keepsRowsByIdInOrder() throws {
        let backend = InMemoryBackend<Todo>([milk])
        var oatMilk = milk
        oatMilk.title = "Oat milk"
        try backend.write(WriteBatch(writes: [eggs, oatMilk, bread]))
        #expect(backend.rows == [oatMilk, eggs, bread])   // an update keeps its place
        #expect(backend[milk.id] == oatMilk)

        try backend.write(WriteBatch(deletions: [eggs.id]))
        #expect(backend.rows == [oatMilk, bread])
        #expect(backend[eggs.id] == nil)

        try backend.write(WriteBatch(order: [bread.id, milk.id]))
        #expect(backend.rows == [bread, oatMilk])
    }

    @Test func recordsEveryBatchUntilTaken() throws {
        let backend = InMemoryBackend<Todo>()
        try backend.write(WriteBatch(writes: [milk]))
        try backend.write(WriteBatch(writes: [eggs], deletions: [milk.id]))
        #expect(backend.batches == [.init(writes: [milk]), .init(writes: [eggs], deletions: [milk.id])])
        #expect(backend.takeBatches().count == 2)
        #expect(backend.batches.isEmpty)
        #expect(backend.writeAttempts == 2)
    }

    @Test func failsTheNextWritesOnDemand() throws {
        struct Offline: Error {}
        let backend = InMemoryBackend<Todo>()
        backend.failNextWrites(count: 2, error: Offline())
        #expect(throws: Offline.self) { try backend.write(WriteBatch(writes: [milk])) }
        #expect(throws: Offline.self) { try backend.write(WriteBatch(writes: [milk])) }
        try backend.write(WriteBatch(writes: [milk]))
        #expect(backend.rows == [milk])
        #expect(backend.batches == [.init(writes: [milk])])
        #expect(backend.writeAttempts == 3)
    }

    @Test func theDefaultInjectedErrorIsRecognizable() {
        let backend = InMemoryBackend<Todo>()
        backend.failNextWrites()
        #expect(throws: InjectedWriteError()) { try backend.write(WriteBatch(writes: [milk])) }
    }

    @MainActor @Test func itsStateWriterFeedsTheMiddleware() async throws {
        let backend = InMemoryBackend<Todo>()
        let persistence = PersistenceMiddleware<TodoState>(writers: [backend.stateWriter(for: \.todos)])
        var state = TodoState()
        state.todos[milk.id] = milk
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(backend.batches == [.init(writes: [milk])])
    }

    @Test func byDefaultAnUpdateOfAMissingRowInsertsItAndNothingVanishes() throws {
        let backend = InMemoryBackend<Todo>()
        let result = try backend.write(WriteBatch(writes: [milk], deletions: [eggs.id], insertions: []))
        #expect(result.vanished.isEmpty)
        #expect(backend.rows == [milk])
    }

    @Test func withDeleteWinsAnUpdateOfAMissingRowVanishes() throws {
        let backend = InMemoryBackend<Todo>([milk, eggs], deleteWins: true)
        backend.deleteExternally([milk.id])
        #expect(backend.batches.isEmpty)
        var renamed = milk
        renamed.title = "Oat milk"
        let result = try backend.write(WriteBatch(writes: [renamed, bread], deletions: [99], insertions: [bread.id]))
        #expect(result.vanished == [99, milk.id])
        #expect(backend.rows == [eggs, bread])          // the insertion inserts, the update does not
    }

    @MainActor @Test func theStoreForgetsAnEntityWhoseUpdateVanished() async throws {
        let backend = InMemoryBackend<Todo>([milk, eggs], deleteWins: true)
        let persistence = PersistenceMiddleware<TodoState>(writers: [backend.stateWriter(for: \.todos)])
        var vanished: [String] = []
        persistence.onVanished = { vanished += $0.ids.map { "\($0)" } }
        let store = Store(initialState: TodoState(todos: EntityStore([milk, eggs])), reducer: todoReducer,
                          environment: (), persistence: persistence)
        store.send(.toggle(milk.id))
        backend.deleteExternally([milk.id])
        try await store.flush()
        #expect(store.state.todos.values == [eggs])
        #expect(vanished == ["1"])
        #expect(backend.rows == [eggs])
    }

    /// A deletion that finds no row (another writer, or a database cascade, was first) is
    /// reported, but the store deleted the entity itself: its undo history stays, so undo
    /// brings the entity back and writes it again.
    @MainActor @Test func aDeletionThatFoundNoRowKeepsItsUndoStep() async throws {
        let backend = InMemoryBackend<Todo>([milk, eggs], deleteWins: true)
        let persistence = PersistenceMiddleware<TodoState>(writers: [backend.stateWriter(for: \.todos)])
        var vanished: [String] = []
        persistence.onVanished = { vanished += $0.ids.map { "\($0)" } }
        let store = Store(initialState: TodoState(todos: EntityStore([milk, eggs])), reducer: todoReducer,
                          environment: (), persistence: persistence, undo: UndoMiddleware(recording: \.todos))
        backend.deleteExternally([milk.id])
        store.send(.remove(milk.id))
        try await store.flush()
        #expect(vanished == ["1"])
        #expect(store.canUndo)
        store.undo()
        #expect(store.state.todos.values == [milk, eggs])
        try await store.flush()
        #expect(Set(backend.rows.map(\.id)) == [milk.id, eggs.id])
    }
}
