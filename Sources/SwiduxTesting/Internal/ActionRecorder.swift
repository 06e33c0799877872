/// Sees every action the wrapped store reduces, with the state right after the reducer.
///
/// The action passed to ``TestStore/send(_:assert:fileID:filePath:line:column:)`` is the
/// first one reduced while `expectingSend` is set; everything else (effect output,
/// `.send` follow-ups) is queued as received.
final class ActionRecorder<State, Action> {
    struct Step {
        let action: Action
        let state: State
    }

    var expectingSend = false
    private(set) var sent: Step?
    var received: [Step] = []
    /// Errors thrown by effects without a `catch` handler, reported at the next step.
    var errors: [any Error] = []
    func record(_ action: Action, state: State) {
        let step = Step(action: action, state: state)
        if expectingSend {
            expectingSend = false
            sent = step
        } else {
            received.append(step)
        }
    }

    func takeSent() -> Step? {
        defer { sent = nil }
        return sent
    }

    /// Wraps `reducer` so that every action it reduces is recorded.
    func recording<R: SwiduxReducer>(_ reducer: R) -> Reduce<State, Action, R.Environment>
    where R.State == State, R.Action == Action, R.RootAction == Action {
        Reduce { state, action, environment in
            let effect = reducer.reduce(state: &state, action: action, environment: environment)
            self.record(action, state: state)
            return effect
        }
    }
}
