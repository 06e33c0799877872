import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

/// Model-based test of undo by patches: random undoable, coalescing and skipped actions on
/// a persisted board (entity store + fields), with undo and redo interleaved, checked
/// against a reference model that keeps full snapshots:
///
/// - when the state is exactly what the step left (no skipped action intervened), undo
///   (redo) restores the snapshot before the step (before the undo), order included;
/// - otherwise, field by field and entity by entity: what the step changed gets its value
///   from before the step, everything else keeps its current value;
/// - the backend's rows always end equal to the state (flushes at random moments), and
///   the entity store's invariants hold.
///
/// Knobs: `SWIDUX_UNDO_MODEL_STEPS` (steps per seed, default 400), `SWIDUX_UNDO_MODEL_SEED`
/// (run only this seed: the one a failure prints).
@MainActor
@Suite("Undo model", .timeLimit(.minutes(2)))
struct UndoModelTests {
    nonisolated static let steps = Int(ProcessInfo.processInfo.environment["SWIDUX_UNDO_MODEL_STEPS"] ?? "") ?? 400
    nonisolated static let seeds: [UInt64] = ProcessInfo.processInfo.environment["SWIDUX_UNDO_MODEL_SEED"]
        .flatMap(UInt64.init).map { [$0] } ?? [1, 2, 3, 4, 5, 6]

    /// What the model remembers of a state.
    struct Snapshot: Equatable {
        var cards: [Tile]
        var title: String
        var ui: BoardUI

        func tile(_ id: Int) -> Tile? { cards.first { $0.id == id } }
    }

    /// One step of the reference history: the values before it of what it changed.
    struct Step {
        var before: Snapshot
        var after: Snapshot
        var previousCards: [Int: Tile?] = [:]
        var previousTitle: String?
        var previousUI: BoardUI?
        /// `false` when a skipped action changed the state in the middle of the step (a
        /// coalescing run): its `before` is then not what undo restores.
        var exact = true

        /// Adds what `from → to` changed, unless an earlier part of the step changed it.
        mutating func add(from: Snapshot, to: Snapshot) {
            let ids = Set(from.cards.map(\.id)).union(to.cards.map(\.id))
            for id in ids where from.tile(id) != to.tile(id) && previousCards.index(forKey: id) == nil {
                previousCards[id] = from.tile(id)
            }
            if from.title != to.title, previousTitle == nil { previousTitle = from.title }
            if from.ui != to.ui, previousUI == nil { previousUI = from.ui }
            after = to
        }
    }

    @Test(arguments: seeds)
    func randomActionsUndoAndRedoMatchTheModel(seed: UInt64) async throws {
        var runner = UndoModelRunner(seed: seed)
        for index in 0..<Self.steps {
            let description = await runner.step()
            if let failure = runner.failure {
                Issue.record("seed \(seed), step \(index) (\(description)): \(failure)\nlast steps: \(runner.history.suffix(12))")
                return
            }
        }
        if !runner.wholesale { try await runner.harness.flushAndCompare() }
        #expect(runner.exactChecks > 0)
        #expect(runner.interleavedChecks > 0)
    }

    /// Field by field: another writer and skipped actions change other fields of the chores
    /// a step changed, no-op actions interleaved, `ui` unnamed (see `UndoFieldModelRunner`).
    @Test(arguments: seeds)
    func fieldByFieldUndoMatchesTheModel(seed: UInt64) async throws {
        var runner = UndoFieldModelRunner(seed: seed)
        var history: [String] = []
        for index in 0..<Self.steps {
            history.append(await runner.step())
            if let failure = runner.failure {
                Issue.record("seed \(seed), step \(index): \(failure)\nlast steps: \(history.suffix(12))")
                return
            }
        }
        try await runner.store.flush()
        #expect(runner.harness.backend.rows == runner.store.state.chores.values)
        #expect(runner.mergedChecks > 0)
    }

    /// A state without entity stores: only the named fields the step changed go back.
    @Test(arguments: seeds)
    func aStateWithoutEntityStoresMatchesTheModel(seed: UInt64) {
        var runner = UndoPlainModelRunner(seed: seed)
        var history: [String] = []
        for index in 0..<Self.steps {
            history.append(runner.step())
            if let failure = runner.failure {
                Issue.record("seed \(seed), step \(index): \(failure)\nlast steps: \(history.suffix(12))")
                return
            }
        }
    }
}

@MainActor
struct UndoModelRunner {
    typealias Snapshot = UndoModelTests.Snapshot
    typealias Step = UndoModelTests.Step

    var rng: SeededRandomNumberGenerator
    let harness: BoardHarness
    let maxDepth = 12
    var undoStack: [Step] = []
    var redoStack: [Step] = []
    var coalescingRun = false
    /// A skipped action changed the state since the last step was pushed.
    var skippedSinceLastStep = false
    var nextID = 100
    var saved: [EntityStore<Tile>] = []
    var history: [String] = []
    var failure: String?
    var exactChecks = 0
    var interleavedChecks = 0

    /// Odd seeds also replace the entity store wholesale and merge into it, which the
    /// persistence middleware does not write (hydration semantics): their runs do not
    /// compare the backend with the state.
    let wholesale: Bool

    init(seed: UInt64) {
        wholesale = seed % 2 == 1
        rng = SeededRandomNumberGenerator(seed: seed)
        harness = BoardHarness((0..<8).map { tile($0) }, maxDepth: maxDepth)
    }

    var store: Store<BoardState, BoardAction> { harness.store }

    var snapshot: Snapshot {
        let state = store.state
        return Snapshot(cards: state.cards.values, title: state.title, ui: state.ui)
    }

    mutating func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func text() -> String { ["a", "b", "c", "d", "e"][random(0..<5)] + "\(random(0..<4))" }
    mutating func randomID() -> Int? { store.state.cards.ids.randomElement(using: &rng) }

    /// A random mutation of the board, described.
    mutating func mutation() -> (String, @Sendable (inout BoardState) -> Void) {
        switch random(0..<100) {
        case 0..<18:
            nextID += 1
            let new = Tile(id: nextID, text: text())
            return ("insert \(new.id)", { $0.cards[new.id] = new })
        case 18..<38:
            guard let id = randomID() else { return ("update (none)", { _ in }) }
            let value = text()
            return ("update \(id) = \(value)", { $0.cards.modify(id) { $0.text = value } })
        case 38..<48:
            guard let id = randomID() else { return ("delete (none)", { _ in }) }
            return ("delete \(id)", { $0.cards[id] = nil })
        case 48..<52:
            let modulus = random(2..<5), remainder = random(0..<2)
            return ("removeAll(id % \(modulus) == \(remainder))", { $0.cards.removeAll { $0.id % modulus == remainder } })
        case 52..<57:
            let descending = random(0..<2) == 0
            return ("sort \(descending ? "desc" : "asc")", { state in
                state.cards.sort { descending ? ($0.text, $0.id) > ($1.text, $1.id) : ($0.text, $0.id) < ($1.text, $1.id) }
            })
        case 57..<63:
            let count = store.state.cards.count
            guard count > 1 else { return ("move (none)", { _ in }) }
            let from = random(0..<count), to = random(0..<(count + 1))
            return ("move \(from) to \(to)", { $0.cards.move(fromOffsets: [from], toOffset: to) })
        case 63..<65:
            return ("removeAll()", { $0.cards.removeAll() })
        case 65..<70:
            guard let old = saved.randomElement(using: &rng) else { return ("restore (none)", { _ in }) }
            return ("restore \(old.ids)", { $0.cards.restore(from: old) })
        case 70..<73:
            guard wholesale, let old = saved.randomElement(using: &rng) else { return ("replace (none)", { _ in }) }
            let replacement = EntityStore(old.values.shuffled(using: &rng))
            return ("replace by \(replacement.ids)", { $0.cards = replacement })
        case 73..<76:
            guard wholesale, let old = saved.randomElement(using: &rng) else { return ("merge (none)", { _ in }) }
            return ("merge \(old.ids)", { $0.cards.merge(from: old) { _, _ in true } })
        case 76..<86:
            let value = text()
            return ("title = \(value)", { $0.title = value })
        case 86..<93:
            let value = text()
            return ("filter = \(value)", { $0.ui.filter = value })
        default:
            // Several changes in one action: deletions then an insertion and an update.
            let first = randomID(), second = randomID(), value = text()
            nextID += 1
            let new = Tile(id: nextID, text: text())
            return ("delete \(String(describing: first)), insert \(new.id), update \(String(describing: second))", { state in
                if let first { state.cards[first] = nil }
                state.cards[new.id] = new
                if let second { state.cards.modify(second) { $0.text = value } }
            })
        }
    }

    /// One random operation; returns its description.
    mutating func step() async -> String {
        let description = await operation()
        history.append(description)
        if ProcessInfo.processInfo.environment["SWIDUX_UNDO_MODEL_TRACE"] != nil {
            print("TRACE \(description): undo \(harness.undo.undoCount)/\(undoStack.count) redo \(harness.undo.redoCount)/\(redoStack.count) \(store.state.cards.ids)")
        }
        if failure == nil, let violation = store.state.cards._invariantViolation() { failure = "invariant: \(violation)" }
        return description
    }

    private mutating func operation() async -> String {
        let roll = random(0..<100)
        if roll < 4 {
            saved.append(store.state.cards)
            if saved.count > 4 { saved.removeFirst() }
            return "save"
        }
        if roll < 12 {
            do { try await harness.store.flush() } catch { failure = "flush: \(error)"; return "flush" }
            if !wholesale, harness.backend.rows != store.state.cards.values {
                failure = "backend \(harness.backend.rows.map(\.id)) != state \(store.state.cards.ids)"
            }
            return "flush"
        }
        if roll < 24 { return undo() }
        if roll < 32 { return redo() }
        let policy: UndoPolicy = roll < 70 ? .record : roll < 84 ? .coalesce : .skip
        let (description, mutate) = mutation()
        let before = snapshot
        store.send(BoardAction(undoPolicy: policy, mutate: mutate))
        let after = snapshot
        if policy == .skip, before != after { skippedSinceLastStep = true }
        guard policy != .skip, before != after else { return "\(policy) \(description)" }
        redoStack.removeAll()
        if policy == .coalesce, coalescingRun, !undoStack.isEmpty {
            undoStack[undoStack.count - 1].add(from: before, to: after)
            if skippedSinceLastStep { undoStack[undoStack.count - 1].exact = false }
        } else {
            skippedSinceLastStep = false
            var step = Step(before: before, after: after)
            step.add(from: before, to: after)
            undoStack.append(step)
            if undoStack.count > maxDepth { undoStack.removeFirst() }
        }
        coalescingRun = policy == .coalesce
        if store.canUndo != true || harness.undo.undoCount != undoStack.count {
            failure = "undo count \(harness.undo.undoCount) != model \(undoStack.count)"
        }
        return "\(policy) \(description)"
    }

    private mutating func undo() -> String { travel(undoing: true) }
    private mutating func redo() -> String { travel(undoing: false) }

    /// One `undo()` (or `redo()`): pops the model's step from one stack, checks what the
    /// store did against it and pushes the inverse on the other stack.
    private mutating func travel(undoing: Bool) -> String {
        let name = undoing ? "undo" : "redo"
        coalescingRun = false
        let step = undoing ? undoStack.popLast() : redoStack.popLast()
        let storeCould = undoing ? store.canUndo : store.canRedo
        let pre = snapshot
        if undoing { store.undo() } else { store.redo() }
        let post = snapshot
        guard let step else {
            if storeCould { failure = "the store can \(name), the model cannot" }
            if post != pre { failure = "\(name) with nothing to \(name) changed the state" }
            return "\(name) (none)"
        }
        check(step, pre: pre, post: post)
        var inverse = Step(before: pre, after: post)
        inverse.add(from: pre, to: post)
        guard pre != post else { return name }   // a step that changed nothing leaves no inverse
        if undoing {
            redoStack.append(inverse)
        } else {
            undoStack.append(inverse)
            if undoStack.count > maxDepth { undoStack.removeFirst() }
        }
        return name
    }

    /// Applying `step` to `pre` gave `post`: exactly its `before` when nothing intervened,
    /// otherwise its previous values for what it changed and `pre`'s for the rest.
    private mutating func check(_ step: Step, pre: Snapshot, post: Snapshot) {
        if step.exact, pre == step.after {
            exactChecks += 1
            if post != step.before { failure = "exact: got \(describe(post)), expected \(describe(step.before))" }
            return
        }
        interleavedChecks += 1
        let ids = Set(pre.cards.map(\.id)).union(post.cards.map(\.id)).union(step.previousCards.keys)
        for id in ids.sorted() {
            let expected = step.previousCards.index(forKey: id) != nil ? step.previousCards[id]! : pre.tile(id)
            if post.tile(id) != expected {
                failure = "interleaved: card \(id) is \(String(describing: post.tile(id))), expected \(String(describing: expected))"
                return
            }
        }
        if post.title != (step.previousTitle ?? pre.title) { failure = "interleaved: title \(post.title)" }
        if post.ui != (step.previousUI ?? pre.ui) { failure = "interleaved: ui \(post.ui)" }
    }

    private func describe(_ snapshot: Snapshot) -> String {
        "\(snapshot.cards.map { "\($0.id)=\($0.text)" }) title \(snapshot.title) filter \(snapshot.ui.filter)"
    }
}
