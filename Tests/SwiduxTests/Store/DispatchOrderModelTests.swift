import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

/// Random programs of hook sends and `.send` follow-ups, checked against a model of the rule:
/// follow-ups run right after their action (depth first); sends from hooks are queued and
/// reduced, FIFO, after the outermost send. Seeds: `SWIDUX_DISPATCH_MODEL_SEEDS` (default 60).
@MainActor
@Suite("Dispatch order model", .timeLimit(.minutes(2)))
struct DispatchOrderModelTests {
    struct Program {
        var before: [[Int]]
        var after: [[Int]]
        var followUps: [[Int]]
    }

    final class ProgramMiddleware: Middleware {
        let program: Program
        weak var store: Store<[Int], Int>?
        init(program: Program) { self.program = program }
        func beforeReduce(state: [Int], action: Int) {
            for next in program.before[action] { store?.send(next) }
        }
        func afterReduce(state: inout [Int], action: Int) {
            for next in program.after[action] { store?.send(next) }
        }
    }

    /// Only larger actions are sent, so every program terminates.
    static func randomProgram(size: Int, using rng: inout SeededRandomNumberGenerator) -> Program {
        func targets(after action: Int) -> [Int] {
            guard action + 1 < size else { return [] }
            let count = Int.random(in: 0...2, using: &rng)
            return (0..<count).map { _ in Int.random(in: (action + 1)..<size, using: &rng) }
        }
        return Program(
            before: (0..<size).map { targets(after: $0) },
            after: (0..<size).map { targets(after: $0) },
            followUps: (0..<size).map { targets(after: $0) }
        )
    }

    static func model(_ program: Program, start: Int) -> [Int] {
        var reduced: [Int] = []
        var queue: [Int] = []
        var head = 0
        func dispatch(_ action: Int) {
            queue.append(contentsOf: program.before[action])
            reduced.append(action)
            queue.append(contentsOf: program.after[action])
            for next in program.followUps[action] { dispatch(next) }
        }
        dispatch(start)
        while head < queue.count {
            head += 1
            dispatch(queue[head - 1])
        }
        return reduced
    }

    @Test func reducedOrderMatchesTheModel() {
        let seeds = ProcessInfo.processInfo.environment["SWIDUX_DISPATCH_MODEL_SEEDS"].flatMap(Int.init) ?? 60
        for seed in 0..<seeds {
            var rng = SeededRandomNumberGenerator(seed: UInt64(seed))
            let program = Self.randomProgram(size: 12, using: &rng)
            let middleware = ProgramMiddleware(program: program)
            let reducer = Reduce<[Int], Int, Void> { state, action, _ in
                state.append(action)
                let followUps = program.followUps[action]
                return followUps.isEmpty ? nil : .merge(followUps.map { Effect.send($0) })
            }
            let errors = Recorder<String>()
            let store = Store(initialState: [], reducer: reducer, environment: (), middleware: [middleware],
                              onUnexpectedError: { errors.append("\($0)") })
            middleware.store = store
            let expected = Self.model(program, start: 0)
            store.send(0)
            if expected.count <= RootBox<[Int], Int>.maxQueuedActions {
                #expect(store.state == expected, "seed \(seed)")
                #expect(errors.values.isEmpty, "seed \(seed)")
            }
        }
    }
}
