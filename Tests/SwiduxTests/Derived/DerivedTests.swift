import Foundation
import Observation
import Testing
@testable import Swidux

struct DerivedTask: Identifiable, Equatable, Sendable {
    let id: Int
    var group: Int
    var done = false
    /// Lets a test see when the entities of an old state are released.
    var witness: LifeWitness? = nil
}

/// Compares equal to any other: only its lifetime matters.
final class LifeWitness: Equatable, Sendable {
    static func == (lhs: LifeWitness, rhs: LifeWitness) -> Bool { true }
}

/// Not `Equatable`: compared structurally by `Derived`.
struct DerivedOptions: Sendable {
    var showDone = true
}

struct DerivedState: Equatable, Sendable {
    var tasks = EntityStore((0..<10).map { DerivedTask(id: $0, group: $0 % 2) })
    var group = 0
    var unrelated = 0
    var options = DerivedOptions()
    var children = DerivedChild()

    static func == (lhs: DerivedState, rhs: DerivedState) -> Bool {
        lhs.tasks == rhs.tasks && lhs.group == rhs.group && lhs.unrelated == rhs.unrelated
            && lhs.options.showDone == rhs.options.showDone && lhs.children == rhs.children
    }
}

struct DerivedChild: Equatable, Sendable {
    var tasks = EntityStore((0..<4).map { DerivedTask(id: $0, group: 0) })
    var note = ""
}

enum DerivedAction: Sendable {
    case bump, setGroup(Int), toggle(Int), toggleSame(Int), insert(Int, group: Int), delete(Int)
    case moveFirstToEnd, sortDescending, setShowDone(Bool), childToggle(Int), childNote(String)
    case selectFirstVisible
}

/// The ids of the tasks of the selected group, in order (one computation counted per call).
let tasksOfGroup = Derived(\DerivedState.tasks, \.group) { tasks, group in
    tasks.filter { $0.group == group }.map(\.id)
}

@MainActor let derivedReducer = Reduce<DerivedState, DerivedAction, Void> { state, action, _ in
    switch action {
    case .bump: state.unrelated += 1
    case .setGroup(let group): state.group = group
    case .toggle(let id): state.tasks.modify(id) { $0.done.toggle() }
    case .toggleSame(let id): state.tasks.modify(id) { $0.done = $0.done }
    case .insert(let id, let group): state.tasks[id] = DerivedTask(id: id, group: group)
    case .delete(let id): state.tasks[id] = nil
    case .moveFirstToEnd: state.tasks.move(fromOffsets: [0], toOffset: state.tasks.count)
    case .sortDescending: state.tasks.sort { $0.id > $1.id }
    case .setShowDone(let show): state.options.showDone = show
    case .childToggle(let id): state.children.tasks.modify(id) { $0.done.toggle() }
    case .childNote(let note): state.children.note = note
    case .selectFirstVisible:
        // A reducer reads derived state from the state it is given.
        state.unrelated = tasksOfGroup(state).first ?? -1
    }
    return nil
}

@MainActor
@Suite("Derived state: memoized, observed by its inputs", .timeLimit(.minutes(1)))
struct DerivedTests {
    /// A fresh declaration per test (the memo lives in the declaration), counting its runs.
    func groupDerived() -> Derived<DerivedState, [Int]> {
        Derived(\DerivedState.tasks, \.group) { tasks, group in tasks.filter { $0.group == group }.map(\.id) }
    }

    func expected(_ state: DerivedState) -> [Int] {
        state.tasks.filter { $0.group == state.group }.map(\.id)
    }

    @Test func recomputedExactlyWhenAnInputChanges() {
        let derived = groupDerived()
        var state = DerivedState()
        // (action, does it change an input?)
        let steps: [(DerivedAction, Bool)] = [
            (.bump, false),
            (.toggle(2), true),             // in-place modify
            (.toggleSame(2), false),        // a modify that changes nothing
            (.bump, false),
            (.insert(20, group: 0), true),
            (.insert(21, group: 1), true),  // an input changed, even if the result did not
            (.delete(4), true),
            (.delete(99), false),           // deleting a missing id changes nothing
            (.moveFirstToEnd, true),        // reorder
            (.sortDescending, true),
            (.sortDescending, false),       // already sorted
            (.setGroup(1), true),
            (.setGroup(1), false),          // the same value
            (.setShowDone(false), false),
            (.childToggle(1), false),
        ]
        #expect(derived(state) == expected(state))
        var computations = 1
        #expect(derived.computationCount == computations)
        for (action, changesInput) in steps {
            _ = derivedReducer.reduce(state: &state, action: action, environment: ())
            #expect(derived(state) == expected(state), "\(action)")
            #expect(derived(state) == expected(state), "\(action), read twice")
            if changesInput { computations += 1 }
            #expect(derived.computationCount == computations, "\(action)")
        }
    }

    @Test func inputsThatAreNotEntityStoresCompareByValueOrStructure() {
        var runs = 0
        let counter = ComputeTally()
        let derived = Derived(\DerivedState.options, \.children) { options, children in
            counter.add()
            return options.showDone ? children.tasks.count : children.tasks.filter { !$0.done }.count
        }
        var state = DerivedState()
        #expect(derived(state) == 4)
        runs += 1
        state.unrelated += 1
        state.options.showDone = true                  // same value: not `Equatable`, compared by field
        #expect(derived(state) == 4)
        state.options.showDone = false
        #expect(derived(state) == 4)
        runs += 1
        state.children.tasks.modify(0) { $0.done = true }   // inside a struct: by fingerprint
        #expect(derived(state) == 3)
        runs += 1
        state.children.note = ""                        // the same value
        #expect(derived(state) == 3)
        state.children.note = "changed"
        #expect(derived(state) == 3)
        runs += 1
        #expect(counter.value == runs)
        #expect(derived.computationCount == runs)
    }

    @Test func readThroughTheStoreObservesItsInputsOnly() {
        let derived = groupDerived()
        let store = Store(initialState: DerivedState(), reducer: derivedReducer, environment: ())
        var last: [Int] = []
        let reader = ChangeCounter { last = store[derived] }
        #expect(last == [0, 2, 4, 6, 8])
        #expect(derived.computationCount == 1)

        let unrelated: [DerivedAction] = [.bump, .setShowDone(false), .childToggle(0), .childNote("x"), .toggleSame(2), .delete(99)]
        for action in unrelated { store.send(action) }
        #expect(reader.count == 0)
        #expect(derived.computationCount == 1)

        let related: [DerivedAction] = [.toggle(3), .insert(30, group: 0), .delete(2), .moveFirstToEnd, .setGroup(1)]
        for (index, action) in related.enumerated() {
            store.send(action)
            #expect(reader.count == index + 1, "\(action)")
            #expect(last == expected(store.state), "\(action)")
        }
        // The reader re-read once per notification: one computation per change.
        #expect(derived.computationCount == 1 + related.count)
        store.send(.bump)
        #expect(reader.count == related.count)
    }

    @Test func readThroughAScopedStoreObservesTheChildsInputs() {
        let derived = Derived(\DerivedChild.tasks) { tasks in tasks.filter(\.done).count }
        let store = Store(initialState: DerivedState(), reducer: derivedReducer, environment: ())
        let child = store.scope(state: \.children, embed: { (action: DerivedAction) in action })
        var done = -1
        let reader = ChangeCounter { done = child[derived] }
        #expect(done == 0)
        store.send(.toggle(1))
        store.send(.childNote("unrelated"))
        #expect(reader.count == 0)
        store.send(.childToggle(1))
        #expect(reader.count == 1)
        #expect(done == 1)
        #expect(derived.computationCount == 2)
    }

    @Test func usableFromAReducer() {
        let store = Store(initialState: DerivedState(), reducer: derivedReducer, environment: ())
        store.send(.setGroup(1))
        store.send(.selectFirstVisible)
        #expect(store.state.unrelated == 1)
        store.send(.delete(1))
        store.send(.selectFirstVisible)
        #expect(store.state.unrelated == 3)
    }

    @Test func theMemoKeepsNoOldStateAlive() {
        let derived = Derived(\DerivedState.tasks) { tasks in tasks.count }
        weak var witness: LifeWitness?
        var state = DerivedState()
        do {
            let object = LifeWitness()
            witness = object
            state.tasks.modify(0) { $0.witness = object }
        }
        #expect(derived(state) == 10)
        state.tasks.modify(0) { $0.witness = nil }
        // The memo remembers the fingerprint of the entity store it read, not the store.
        #expect(witness == nil)
        #expect(derived(state) == 10)
        #expect(derived.computationCount == 2)
    }

    @Test func readingDoesNotMakeTheNextInPlaceChangeCopyTheEntityStore() {
        let derived = Derived(\DerivedState.tasks) { tasks in tasks.count }
        var state = DerivedState()
        _ = derived(state)
        #expect(isKnownUniquelyReferenced(&state.tasks.storage))
    }

    @Test func concurrentReadersSeeTheValueOfTheirState() async {
        let derived = Derived(\DerivedState.tasks, \.group) { tasks, group in tasks.filter { $0.group == group }.count }
        var states: [DerivedState] = []
        for group in 0..<4 {
            var state = DerivedState()
            state.group = group % 2
            state.tasks[100 + group] = DerivedTask(id: 100 + group, group: 0)
            states.append(state)
        }
        let all = states
        let wrong = await withTaskGroup(of: Int.self) { tasks in
            for reader in 0..<8 {
                tasks.addTask {
                    var wrong = 0
                    for round in 0..<500 {
                        let state = all[(reader + round) % all.count]
                        if derived(state) != state.tasks.filter({ $0.group == state.group }).count { wrong += 1 }
                    }
                    return wrong
                }
            }
            var total = 0
            for await wrong in tasks { total += wrong }
            return total
        }
        #expect(wrong == 0)
    }
}

/// A thread-safe tally for compute functions (which must be `@Sendable`).
final class ComputeTally: @unchecked Sendable {
    private let lock = LockedValue(())
    private var count = 0
    func add() { lock.withLock { _ in count += 1 } }
    var value: Int { lock.withLock { _ in count } }
}
