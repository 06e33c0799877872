import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

/// The field-by-field undo model (see `UndoModelTests`): recorded and coalescing actions
/// rename chores, edit their notes, insert, delete, sort and set the named `title`, some of
/// them with no net effect; skipped actions and another writer (external changes, after a
/// flush) change `done` and notes of the same chores and the unnamed `ui`. After each undo
/// or redo, every chore the step changed has the step's previous value for each field the
/// step changed and its current value for the others, the order is the one before the step,
/// `title` is back only if the step changed it, and `ui` never moves.
@MainActor
struct UndoFieldModelRunner {
    struct Snapshot: Equatable {
        var chores: [Chore]
        var title: String
        var ui: Int
        func chore(_ id: Int) -> Chore? { chores.first { $0.id == id } }
    }

    struct Step {
        var before: [Int]   // the order before the step
        var previous: [Int: Chore?] = [:]
        var after: [Int: Chore?] = [:]
        var previousTitle: String?

        init(from: Snapshot, to: Snapshot) {
            before = from.chores.map(\.id)
            add(from: from, to: to)
        }

        mutating func add(from: Snapshot, to: Snapshot) {
            for id in Set(from.chores.map(\.id)).union(to.chores.map(\.id)) where from.chore(id) != to.chore(id) {
                if previous.index(forKey: id) == nil { previous[id] = from.chore(id) }
                after[id] = to.chore(id)
            }
            if from.title != to.title, previousTitle == nil { previousTitle = from.title }
        }
    }

    var rng: SeededRandomNumberGenerator
    let harness: ChoreHarness
    let maxDepth = 10
    var undoStack: [Step] = []
    var redoStack: [Step] = []
    var coalescingRun = false
    var nextID = 100
    var failure: String?
    var checks = 0
    var mergedChecks = 0
    /// The chore the last recorded rename or note edit changed: skipped actions and the other
    /// writer pick it half of the time, so that undo meets entities changed since their step.
    var lastEdited: Int?

    init(seed: UInt64) {
        rng = SeededRandomNumberGenerator(seed: seed)
        harness = ChoreHarness((0..<6).map { Chore(id: $0, title: "c\($0)") }, maxDepth: maxDepth)
    }

    var store: Store<ChoreState, ChoreAction> { harness.store }
    var snapshot: Snapshot { Snapshot(chores: store.state.chores.values, title: store.state.title, ui: store.state.ui) }

    mutating func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func text() -> String { ["a", "b", "c"][random(0..<3)] + "\(random(0..<3))" }
    mutating func randomID() -> Int? { store.state.chores.ids.randomElement(using: &rng) }
    mutating func otherWritersID() -> Int? {
        if let lastEdited, store.state.chores[lastEdited] != nil, random(0..<2) == 0 { return lastEdited }
        return randomID()
    }

    /// A recorded (or coalescing) mutation: changes titles, notes, membership, order, `title`
    /// (and sometimes the unnamed `ui` with it), or nothing in net.
    mutating func domainMutation() -> (String, @Sendable (inout ChoreState) -> Void) {
        let ui = random(0..<3)
        switch random(0..<100) {
        case 0..<25:
            guard let id = randomID() else { return ("rename (none)", { _ in }) }
            let value = text()
            lastEdited = id
            return ("rename \(id) \(value)", { $0.chores.modify(id) { $0.title = value }; $0.ui = ui })
        case 25..<35:
            guard let id = randomID() else { return ("note (none)", { _ in }) }
            let value = random(0..<2) == 0 ? nil : text()
            lastEdited = id
            return ("note \(id) \(String(describing: value))", { $0.chores.modify(id) { $0.note = value } })
        case 35..<48:
            nextID += 1
            let new = Chore(id: nextID, title: text())
            return ("insert \(new.id)", { $0.chores[new.id] = new; $0.ui = ui })
        case 48..<58:
            guard let id = randomID() else { return ("delete (none)", { _ in }) }
            return ("delete \(id)", { $0.chores[id] = nil })
        case 58..<63:
            return ("sort", { $0.chores.sort { ($0.title, $0.id) < ($1.title, $1.id) } })
        case 63..<73:
            let value = text()
            return ("title \(value)", { $0.title = value })
        case 73..<78:
            guard let id = randomID() else { return ("delete+reinsert (none)", { _ in }) }
            return ("delete+reinsert \(id)", { state in
                let chore = state.chores[id]!
                state.chores[id] = nil
                state.chores[id] = chore
            })
        case 78..<83:
            nextID += 1
            let id = nextID
            return ("insert+delete \(id)", { $0.chores[id] = Chore(id: id, title: "x"); $0.chores[id] = nil })
        case 83..<88:
            return ("sort back", { state in
                let order = state.chores.ids
                state.chores.sort { $0.id > $1.id }
                state.chores.sort { order.firstIndex(of: $0.id)! < order.firstIndex(of: $1.id)! }
            })
        case 88..<93:
            return ("title same", { $0.title = $0.title; $0.ui = ui })
        default:
            guard let id = randomID() else { return ("rename twice (none)", { _ in }) }
            return ("rename \(id) and back", { state in
                let old = state.chores[id]!.title
                state.chores.modify(id) { $0.title = "tmp" }
                state.chores.modify(id) { $0.title = old }
            })
        }
    }

    /// One random operation; returns its description.
    mutating func step() async -> String {
        let roll = random(0..<100)
        if roll < 8 {
            do { try await store.flush() } catch { failure = "flush: \(error)" }
            if harness.backend.rows != store.state.chores.values { failure = "backend differs from the state" }
            return "flush"
        }
        if roll < 16 {
            // Another writer changes `done` (or the note) of a chore: after a flush, so that
            // no local change is pending for it (a pending local change would win).
            guard let id = otherWritersID() else { return "external (none)" }
            do { try await store.flush() } catch { failure = "flush: \(error)" }
            var chore = store.state.chores[id]!
            if random(0..<2) == 0 { chore.done.toggle() } else { chore.note = "ext\(random(0..<3))" }
            // The other writer commits it to the backend, then the store hears of it.
            do { _ = try harness.backend.write(WriteBatch(writes: [chore], insertions: [])) } catch { failure = "external write: \(error)" }
            var changes = ExternalChanges<ChoreState>(origin: "other")
            changes.upsert(chore, in: \.chores)
            store.applyExternalChanges(changes)
            return "external \(id)"
        }
        if roll < 28 {
            guard let id = otherWritersID() else { return "skip (none)" }
            let ui = random(0..<5), toggles = random(0..<2) == 0
            store.send(.skip { state in
                state.ui = ui
                if toggles { state.chores.modify(id) { $0.done.toggle() } } else { state.chores.modify(id) { $0.note = "s" } }
            })
            return "skip \(id)"
        }
        if roll < 42 { return move(undo: true) }
        if roll < 50 { return move(undo: false) }
        let coalescing = roll < 62
        let (description, mutate) = domainMutation()
        let before = snapshot
        store.send(ChoreAction(undoPolicy: coalescing ? .coalesce : .record, mutate: mutate))
        let after = snapshot
        let changed = before.chores != after.chores || before.title != after.title
        if changed {
            redoStack.removeAll()
            if coalescing, coalescingRun, !undoStack.isEmpty {
                undoStack[undoStack.count - 1].add(from: before, to: after)
            } else {
                undoStack.append(Step(from: before, to: after))
                if undoStack.count > maxDepth { undoStack.removeFirst() }
            }
            coalescingRun = coalescing
        }   // an action that changed nothing leaves the coalescing run as it was (as the store does)
        if harness.undo.undoCount != undoStack.count || harness.undo.redoCount != redoStack.count {
            failure = "history \(harness.undo.undoCount)/\(harness.undo.redoCount) != model \(undoStack.count)/\(redoStack.count)"
        }
        return "\(coalescing ? "coalesce" : "record") \(description)"
    }

    private mutating func move(undo: Bool) -> String {
        coalescingRun = false
        let name = undo ? "undo" : "redo"
        guard let step = undo ? undoStack.popLast() : redoStack.popLast() else {
            if undo ? store.canUndo : store.canRedo { failure = "the store can \(name), the model cannot" }
            let pre = snapshot
            if undo { store.undo() } else { store.redo() }   // ends a coalescing run, changes nothing
            if snapshot != pre { failure = "\(name) with nothing to \(name) changed the state" }
            return "\(name) (none)"
        }
        let pre = snapshot
        if undo { store.undo() } else { store.redo() }
        let post = snapshot
        if ProcessInfo.processInfo.environment["SWIDUX_UNDO_MODEL_TRACE"] != nil {
            print("TRACE \(name) prev \(step.previous) after \(step.after)\n  pre \(pre.chores.filter { step.previous.keys.contains($0.id) })\n  post \(post.chores.filter { step.previous.keys.contains($0.id) })")
        }
        check(step, pre: pre, post: post)
        if pre.chores != post.chores || pre.title != post.title {
            if undo { redoStack.append(Step(from: pre, to: post)) } else { undoStack.append(Step(from: pre, to: post)) }
        }
        if harness.undo.undoCount != undoStack.count || harness.undo.redoCount != redoStack.count {
            failure = "after \(name): history \(harness.undo.undoCount)/\(harness.undo.redoCount) != model \(undoStack.count)/\(redoStack.count)"
        }
        return name
    }

    private mutating func check(_ step: Step, pre: Snapshot, post: Snapshot) {
        checks += 1
        if post.ui != pre.ui { failure = "ui moved: \(pre.ui) → \(post.ui)"; return }
        if post.title != (step.previousTitle ?? pre.title) { failure = "title \(post.title)"; return }
        if post.chores.map(\.id) != step.before { failure = "order \(post.chores.map(\.id)) != \(step.before)"; return }
        for id in Set(pre.chores.map(\.id)).union(post.chores.map(\.id)).union(step.previous.keys) {
            let expected: Chore?
            if let previous = step.previous[id] {
                if let previous, case let after?? = step.after[id], let current = pre.chore(id), current != after {
                    mergedChecks += 1
                    expected = Chore(id: id,
                                     title: previous.title != after.title ? previous.title : current.title,
                                     done: previous.done != after.done ? previous.done : current.done,
                                     note: previous.note != after.note ? previous.note : current.note)
                } else {
                    expected = previous
                }
            } else {
                expected = pre.chore(id)
            }
            if post.chore(id) != expected {
                failure = "chore \(id) is \(String(describing: post.chore(id))), expected \(String(describing: expected))"
                return
            }
        }
    }
}

/// The same for a state without entity stores: named fields `a` and `b`, unnamed `ui`.
@MainActor
struct UndoPlainModelRunner {
    struct Plain: Equatable, Sendable { var a = 0; var b = ""; var ui = 0 }
    struct PlainAction: Sendable, UndoableAction {
        let undoPolicy: UndoPolicy
        let mutate: @Sendable (inout Plain) -> Void
    }
    struct Step { var a: Int?; var b: String? }

    var rng: SeededRandomNumberGenerator
    let undo = UndoMiddleware<Plain>(maxDepth: 6, recording: \.a, \.b)
    let store: Store<Plain, PlainAction>
    var undoStack: [Step] = []
    var redoStack: [Step] = []
    var coalescingRun = false
    var failure: String?

    init(seed: UInt64) {
        rng = SeededRandomNumberGenerator(seed: seed)
        let reducer = Reduce<Plain, PlainAction, Void> { state, action, _ in action.mutate(&state); return nil }
        store = Store(initialState: Plain(), reducer: reducer, environment: (), undo: undo)
    }

    mutating func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }

    mutating func step() -> String {
        let roll = random(0..<100)
        let a = random(0..<3), b = ["x", "y", ""][random(0..<3)], ui = random(0..<4)
        if roll < 20 {
            store.send(PlainAction(undoPolicy: .skip) { $0.ui = ui; if roll < 8 { $0.a = a } })
            return "skip"
        }
        if roll < 35 { return move(undo: true) }
        if roll < 45 { return move(undo: false) }
        let policy: UndoPolicy = roll < 60 ? .coalesce : .record
        let which = random(0..<3)
        let before = store.state
        store.send(PlainAction(undoPolicy: policy) { state in
            if which != 1 { state.a = a }
            if which != 0 { state.b = b }
            state.ui = ui
        })
        let after = store.state
        if ProcessInfo.processInfo.environment["SWIDUX_UNDO_MODEL_TRACE"] != nil { print("TRACE \(policy) \(before) -> \(after)") }
        var step = Step()
        if before.a != after.a { step.a = before.a }
        if before.b != after.b { step.b = before.b }
        if step.a != nil || step.b != nil {
            redoStack.removeAll()
            if policy == .coalesce, coalescingRun, !undoStack.isEmpty {
                undoStack[undoStack.count - 1].a = undoStack[undoStack.count - 1].a ?? step.a
                undoStack[undoStack.count - 1].b = undoStack[undoStack.count - 1].b ?? step.b
            } else {
                undoStack.append(step)
                if undoStack.count > undo.maxDepth { undoStack.removeFirst() }
            }
            coalescingRun = policy == .coalesce
        }
        if undo.undoCount != undoStack.count { failure = "history \(undo.undoCount) != model \(undoStack.count)" }
        return "\(policy) a=\(a) b=\(b)"
    }

    private mutating func move(undo isUndo: Bool) -> String {
        coalescingRun = false
        guard let step = isUndo ? undoStack.popLast() : redoStack.popLast() else {
            if isUndo ? store.canUndo : store.canRedo { failure = "the store can move, the model cannot" }
            let pre = store.state
            if isUndo { store.undo() } else { store.redo() }   // ends a coalescing run, changes nothing
            if store.state != pre { failure = "a move with nothing to move changed the state" }
            return "move (none)"
        }
        let pre = store.state
        if isUndo { store.undo() } else { store.redo() }
        let post = store.state
        if ProcessInfo.processInfo.environment["SWIDUX_UNDO_MODEL_TRACE"] != nil { print("TRACE move \(isUndo) step \(step) pre \(pre) post \(post)") }
        let expected = Plain(a: step.a ?? pre.a, b: step.b ?? pre.b, ui: pre.ui)
        if post != expected { failure = "\(isUndo ? "undo" : "redo"): \(post) != \(expected)" }
        var inverse = Step()
        if pre.a != post.a { inverse.a = pre.a }
        if pre.b != post.b { inverse.b = pre.b }
        if inverse.a != nil || inverse.b != nil {
            if isUndo { redoStack.append(inverse) } else { undoStack.append(inverse) }
        }
        return isUndo ? "undo" : "redo"
    }
}
