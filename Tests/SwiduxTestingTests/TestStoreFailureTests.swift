import SwiduxTesting
import Testing

/// The test store's own failure paths: each is reported as a test issue whose message
/// names what differed.
@MainActor
@Suite struct TestStoreFailureTests {
    @Test func wrongExpectedStateFailsWithADiff() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await withKnownIssue {
            await store.send(.bump) { $0.count = 2 }
        } matching: { issue in
            issue.description.contains("State after send(ProbeAction.bump) does not match the expectation")
                && issue.description.contains("−   count: 2")
                && issue.description.contains("+   count: 1")
        }
        #expect(store.state.count == 1)
        await store.send(.bump) { $0.count = 2 }   // the baseline is the actual state
    }

    @Test func aMissingExpectationFails() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await withKnownIssue {
            await store.send(.bump)
        } matching: { issue in
            issue.description.contains("does not match the expectation")
        }
    }

    @Test func anExpectationOfNoChangeFails() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await withKnownIssue {
            await store.send(.noop) { $0.count = 0 }
        } matching: { issue in
            issue.description.contains("Expected the state to change after send(ProbeAction.noop)")
        }
    }

    @Test func sendingWithUnassertedReceivedActionsFails() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.bumpTwice) { $0.count = 1 }
        await withKnownIssue {
            await store.send(.noop)
        } matching: { issue in
            issue.description.contains("Must handle 1 received action before sending ProbeAction.noop")
                && issue.description.contains("• ProbeAction.bump")
        }
        #expect(store.state.count == 2)
    }

    @Test func anUnexpectedReceivedActionFails() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.bumpTwice) { $0.count = 1 }
        await withKnownIssue {
            await store.receive(.loaded(1))
        } matching: { issue in
            issue.description.contains("Received unexpected action ProbeAction.bump, expected ProbeAction.loaded(1)")
        }
    }

    @Test func aPredicateThatDoesNotMatchFails() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.bumpTwice) { $0.count = 1 }
        await withKnownIssue {
            await store.receive({ if case .loaded = $0 { true } else { false } })
        } matching: { issue in
            issue.description.contains("Received action ProbeAction.bump does not match the predicate")
        }
    }

    @Test func aMissingActionTimesOut() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        let task = await store.send(.wait)   // sleeps on a test clock nobody advances
        await withKnownIssue {
            await store.receive(.loaded(10), timeout: .milliseconds(50))
        } matching: { issue in
            issue.description.contains("Expected to receive ProbeAction.loaded(10), but none was received within")
        }
        task.cancel()
        await store.finish()
    }

    @Test func aMissingActionFailsAtOnceWhenNoEffectRuns() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.bump) { $0.count = 1 }
        await withKnownIssue {
            await store.receive(.loaded(1), timeout: .seconds(60))
        } matching: { issue in
            issue.description.contains("none was received and no effect is running")
        }
    }

    @Test func aStillRunningEffectFailsFinish() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.wait)
        await withKnownIssue {
            await store.finish(timeout: .milliseconds(50))
        } matching: { issue in
            issue.description.contains("Effects are still running at the end of the test (started by send(ProbeAction.wait))")
        }
    }

    @Test func unassertedReceivedActionsFailFinish() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.bumpTwice) { $0.count = 1 }
        await withKnownIssue {
            await store.finish()
        } matching: { issue in
            issue.description.contains("The store received 1 unexpected action that were not asserted")
                && issue.description.contains("• ProbeAction.bump")
        }
    }

    @Test func forgettingFinishStillFailsWhenTheStoreGoesAway() async {
        await withKnownIssue {
            let store = TestStore<ProbeState, ProbeAction>.probe()
            await store.send(.bumpTwice) { $0.count = 1 }
        } matching: { issue in
            issue.description.contains("The store received 1 unexpected action")
        }
    }

    @Test func anEffectErrorWithoutCatchFails() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await withKnownIssue {
            await store.send(.fail)   // reported by the first step after the effect threw
            await store.finish()
        } matching: { issue in
            issue.description.contains("An effect threw an error that no `catch` handler took")
        }
    }

    @Test func aThrowingExpectationFails() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await withKnownIssue {
            await store.send(.bump) { _ in throw ProbeError() }
        } matching: { issue in
            issue.description.contains("The expected state after send(ProbeAction.bump) threw an error")
        }
    }

    @Test func entityStoreDiffsShowTheEntitiesNotTheChangeLog() async {
        let store = TestStore(initialState: TodoState(), reducer: todoReducer, environment: ())
        await withKnownIssue {
            await store.send(.add(Todo(id: 1, title: "Milk"))) {
                $0.todos[1] = Todo(id: 1, title: "Milk!")
            }
        } matching: { issue in
            issue.description.contains("State after send(TodoAction.add(Todo(id: 1, title: \"Milk\", isDone: false)))")
                && issue.description.contains(#"title: "Milk!""#)
                && issue.description.contains("[0]: Todo(")
                && !issue.description.contains("changes")
        }
    }
}
