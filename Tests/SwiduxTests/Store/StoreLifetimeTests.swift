import Testing
@testable import Swidux

struct LifetimeState: Equatable { var child: [String] = [] }
enum LifetimeAction: Sendable { case child(String) }

@MainActor
@Suite("Store lifetime", .timeLimit(.minutes(1)))
struct StoreLifetimeTests {
    /// `"start"` runs an effect that sends `"done"` after `gate` opens (or records its
    /// cancellation when it sleeps instead).
    func makeRoot(gate: Gate, cancelled: Recorder<String>) -> Store<LifetimeState, LifetimeAction> {
        Store(initialState: LifetimeState(), reducer: Reduce<LifetimeState, LifetimeAction, Void> { state, action, _ in
            guard case .child(let name) = action else { return nil }
            state.child.append(name)
            switch name {
            case "start":
                return .run { send in
                    await gate.wait()
                    if Task.isCancelled { cancelled.append("start") }
                    await send(.child("done"))
                }
            case "sleep":
                return .run { send in
                    do { try await Task.sleep(for: .seconds(60)) } catch { cancelled.append("sleep") }
                    await send(.child("woke"))
                }
            default: return nil
            }
        }, environment: ())
    }

    @Test func releasingTheRootKeepsTheEffectsOfAScopedStoreInUse() async {
        let gate = Gate()
        let cancelled = Recorder<String>()
        var root: Store<LifetimeState, LifetimeAction>? = makeRoot(gate: gate, cancelled: cancelled)
        weak let weakRoot = root
        let child = root!.scope(state: \.child, embed: LifetimeAction.child)
        let task = child.send("start")
        root = nil
        #expect(weakRoot == nil)
        await gate.open()
        await task.finish()
        #expect(child.state == ["start", "done"])
        #expect(cancelled.values.isEmpty)
    }

    @Test func releasingTheLastStoreCancelsTheEffects() async {
        let cancelled = Recorder<String>()
        var root: Store<LifetimeState, LifetimeAction>? = makeRoot(gate: Gate(), cancelled: cancelled)
        var child: Store<[String], String>? = root!.scope(state: \.child, embed: LifetimeAction.child)
        child!.send("sleep")
        root = nil
        for _ in 0..<50 { await Task.yield() }
        #expect(cancelled.values.isEmpty)      // the scoped store still lives
        child = nil
        #expect(await waitUntil { cancelled.values == ["sleep"] })
        _ = child
    }
}
