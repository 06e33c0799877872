import SwiduxTesting
import Testing

/// `TestStore.closePersistenceWindow()`: one call closes the debounce window on the test
/// clock and returns when the flush it started has written.
@MainActor
@Suite struct PersistenceWindowTests {
    let milk = Todo(id: 1, title: "Milk")
    let eggs = Todo(id: 2, title: "Eggs")

    private func makeStore(
        clock: TestClock<Duration>, backend: InMemoryBackend<Todo>
    ) -> TestStore<TodoState, TodoAction> {
        let persistence = PersistenceMiddleware<TodoState>(
            writers: [backend.stateWriter(for: \.todos)],
            debounce: .milliseconds(250),
            clock: clock
        )
        return TestStore(initialState: TodoState(), reducer: todoReducer, environment: (), persistence: persistence)
    }

    @Test func closingTheWindowWritesWhatTheActionsChanged() async {
        let clock = TestClock()
        let backend = InMemoryBackend<Todo>()
        let store = makeStore(clock: clock, backend: backend)
        let start = clock.now

        await store.send(.add(milk)) { $0.todos[milk.id] = milk }
        await store.send(.add(eggs)) { $0.todos[eggs.id] = eggs }
        #expect(backend.batches.isEmpty)
        await store.closePersistenceWindow()
        #expect(backend.takeBatches() == [.init(writes: [milk, eggs])])
        #expect(clock.now == start.advanced(by: .milliseconds(250)))   // by the window, through the clock

        await store.send(.remove(eggs.id)) { $0.todos[eggs.id] = nil }
        await store.closePersistenceWindow()
        #expect(backend.takeBatches() == [.init(deletions: [eggs.id])])
        #expect(backend.rows == [milk])
        await store.finish()
    }

    @Test func withNothingPendingItWritesNothing() async {
        let clock = TestClock()
        let backend = InMemoryBackend<Todo>()
        let store = makeStore(clock: clock, backend: backend)
        await store.closePersistenceWindow()
        #expect(backend.batches.isEmpty)
        await store.finish()
    }

    @Test func aFailedWriteIsReported() async {
        let clock = TestClock()
        let backend = InMemoryBackend<Todo>()
        let store = makeStore(clock: clock, backend: backend)
        backend.failNextWrites(count: 1)
        await store.send(.add(milk)) { $0.todos[milk.id] = milk }
        await withKnownIssue {
            await store.closePersistenceWindow(timeout: .milliseconds(100))
        } matching: { issue in
            issue.description.contains("still pending after the persistence window closed")
        }
        try? await store.flush()   // the retry
        #expect(backend.rows == [milk])
    }

    @Test func withoutPersistenceItFails() async {
        let store = TestStore(initialState: TodoState(), reducer: todoReducer, environment: ())
        await withKnownIssue {
            await store.closePersistenceWindow()
        } matching: { issue in
            issue.description.contains("no PersistenceMiddleware")
        }
    }
}
