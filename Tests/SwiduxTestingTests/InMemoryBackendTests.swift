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
}
