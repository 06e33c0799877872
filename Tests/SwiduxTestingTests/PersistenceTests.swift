import SwiduxTesting
import Testing

/// What actions persist, asserted with the in-memory backend and a test clock.
@MainActor
@Suite struct PersistenceTests {
    let milk = Todo(id: 1, title: "Milk")
    let eggs = Todo(id: 2, title: "Eggs")

    private func makeStore(
        clock: TestClock<Duration>, backend: InMemoryBackend<Todo>
    ) -> (TestStore<TodoState, TodoAction>, PersistenceMiddleware<TodoState>) {
        let persistence = PersistenceMiddleware<TodoState>(
            writers: [backend.stateWriter(for: \.todos)],
            debounce: .milliseconds(250),
            clock: clock
        )
        let store = TestStore(initialState: TodoState(), reducer: todoReducer, environment: (), persistence: persistence)
        return (store, persistence)
    }

    @Test func changesAreWrittenWhenTheDebounceWindowCloses() async {
        let clock = TestClock()
        let backend = InMemoryBackend<Todo>()
        let (store, _) = makeStore(clock: clock, backend: backend)

        await store.send(.add(milk)) { $0.todos[milk.id] = milk }
        await store.send(.add(eggs)) { $0.todos[eggs.id] = eggs }
        await clock.waitForSleepers()                  // the debounce window is open
        await clock.advance(by: .milliseconds(249))
        #expect(backend.batches.isEmpty)
        await clock.advance(by: .milliseconds(1))
        #expect(await backend.waitForBatches(count: 1))
        #expect(backend.takeBatches() == [.init(writes: [milk, eggs])])

        var oatMilk = milk
        oatMilk.title = "Oat milk"
        await store.send(.rename(milk.id, "Oat milk")) { $0.todos[milk.id] = oatMilk }
        await store.send(.remove(eggs.id)) { $0.todos[eggs.id] = nil }
        await clock.waitForSleepers()
        await clock.advance(by: .milliseconds(250))
        #expect(await backend.waitForBatches(count: 1))
        // Renaming milk is an update (the backend has it), not an insertion.
        #expect(backend.takeBatches() == [.init(writes: [oatMilk], deletions: [eggs.id], insertions: [])])
        #expect(backend.rows == [oatMilk])
        await store.finish()
    }

    @Test func anActionThatChangesNothingPersistsNothing() async throws {
        let clock = TestClock()
        let backend = InMemoryBackend<Todo>()
        let (store, _) = makeStore(clock: clock, backend: backend)
        await store.send(.add(milk)) { $0.todos[milk.id] = milk }
        try await store.flush()
        _ = backend.takeBatches()

        await store.send(.rename(milk.id, "Milk"))   // same title: no state change
        try await store.flush()
        #expect(backend.batches.isEmpty)
        await store.finish()
    }

    @Test func reorderingWritesTheNewOrder() async throws {
        let clock = TestClock()
        let backend = InMemoryBackend<Todo>()
        let (store, _) = makeStore(clock: clock, backend: backend)
        await store.send(.add(milk)) { $0.todos[milk.id] = milk }
        await store.send(.add(eggs)) { $0.todos[eggs.id] = eggs }
        try await store.flush()
        #expect(backend.rows == [milk, eggs])

        await store.send(.sortByTitle) { $0.todos.sort { $0.title < $1.title } }
        try await store.flush()
        #expect(backend.takeBatches().last == .init(order: [eggs.id, milk.id]))
        #expect(backend.rows == [eggs, milk])
        await store.finish()
    }

    @Test func aFailedWriteIsRetriedWithBackoffAndLosesNothing() async throws {
        let clock = TestClock()
        let backend = InMemoryBackend<Todo>()
        let (store, persistence) = makeStore(clock: clock, backend: backend)
        var failures = persistence.errors.makeAsyncIterator()
        backend.failNextWrites(count: 1)

        await store.send(.add(milk)) { $0.todos[milk.id] = milk }
        await clock.waitForSleepers()
        await clock.advance(by: .milliseconds(250))
        try #require(await backend.waitForWriteAttempts(count: 1))
        let failure = await failures.next()
        #expect(failure?.underlying is InjectedWriteError)
        #expect(failure?.attempt == 1)
        #expect(backend.batches.isEmpty)
        #expect(backend.writeAttempts == 1)

        await store.send(.toggle(milk.id)) { $0.todos[milk.id]?.isDone = true }
        var doneMilk = milk
        doneMilk.isDone = true
        await clock.waitForSleepers()                  // the retry is scheduled
        await clock.advance(by: .milliseconds(500))   // RetryPolicy.default's first delay
        #expect(await backend.waitForBatches(count: 1))
        #expect(backend.takeBatches() == [.init(writes: [doneMilk])])
        #expect(backend.writeAttempts == 2)
        await store.finish()
    }
}
