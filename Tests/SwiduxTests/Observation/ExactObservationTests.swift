import Foundation
import Observation
import Testing
@testable import Swidux
import SwiduxTesting

/// A payload that is not `Equatable`.
struct Failure: Sendable {
    var reason = ""
}

/// An enum whose text names no case, not `Equatable` (one case has a payload that is not).
enum Phase: CustomStringConvertible, Sendable {
    case idle, loading, done
    case failed(Failure)
    var description: String { "phase" }
}

/// A struct (not `Equatable`) holding such an enum.
struct Screen {
    var phase: Phase = .idle
    var title = ""
}

protocol Tool: Sendable { var width: Int { get } }
struct Pen: Tool { var width = 1 }
struct Eraser: Tool { var width = 1 }

/// A value behind a class, changed in place.
final class Holder {
    var value = 0
}

struct HeldRow {
    var title = ""
    var holder = Holder()
}

/// A struct (not `Equatable`) with a floating-point leaf.
struct Reading {
    var value = Double.nan
}

struct ExactState {
    var phase: Phase = .idle
    var screen = Screen()
    var tool: any Tool = Pen()
    var holder = Holder()
    var rows: [HeldRow] = (0..<40).map { HeldRow(title: "\($0)") }
    var level = Double.nan
    var reading = Reading()
    var counter = 0
}

enum ExactAction: Sendable {
    case phase(Phase)
    case screenPhase(Phase)
    case title(String)
    case pen(Int), eraser(Int)
    case holderValue(Int)
    case replaceHolder
    case rowValue(Int, Int)
    case rowTitle(Int, String)
    case level(Double)
    case reading(Double)
    case bump
}

@MainActor let exactReducer = Reduce<ExactState, ExactAction, Void> { state, action, _ in
    switch action {
    case .phase(let phase): state.phase = phase
    case .screenPhase(let phase): state.screen.phase = phase
    case .title(let title): state.screen.title = title
    case .pen(let width): state.tool = Pen(width: width)
    case .eraser(let width): state.tool = Eraser(width: width)
    case .holderValue(let value): state.holder.value = value   // in place: the same object
    case .replaceHolder:
        let holder = Holder()
        holder.value = state.holder.value
        state.holder = holder
    case .rowValue(let row, let value): state.rows[row].holder.value = value
    case .rowTitle(let row, let title): state.rows[row].title = title
    case .level(let level): state.level = level
    case .reading(let value): state.reading.value = value
    case .bump: state.counter += 1
    }
    return nil
}

@MainActor let phaseName = Derived(\ExactState.phase) { phase in
    switch phase { case .idle: "idle"; case .loading: "loading"; case .done: "done"; case .failed: "failed" }
}

@MainActor let toolName = Derived(\ExactState.tool) { tool in "\(type(of: tool)) \(tool.width)" }

/// Observation is exact where the slice's own text or identity could hide a change: enums
/// whose description names no case, existentials that change type, values behind a class
/// read by many scoped stores, floating-point NaN (issue 28, items 6–9).
@MainActor
@Suite("Observation: exact for enums, existentials, references and NaN", .timeLimit(.minutes(1)))
struct ExactObservationTests {
    func makeStore() -> Store<ExactState, ExactAction> {
        Store(initialState: ExactState(), reducer: exactReducer, environment: ())
    }

    /// Arms `count` scoped row readers: above the tracker's gate threshold with 40.
    func armRows(_ store: Store<ExactState, ExactAction>, count: Int) -> [ChangeCounter] {
        (0..<count).map { index in
            let row = store.scope(state: \.rows[index], embed: { (action: ExactAction) in action })
            return ChangeCounter { _ = row.title }
        }
    }

    // MARK: 6. enums whose description names no case

    @Test func aCaseChangeIsSeenWhateverTheDescription() {
        let store = makeStore()
        let phase = ChangeCounter { _ = store.phase }
        let screen = ChangeCounter { _ = store.screen }
        store.send(.phase(.idle))
        store.send(.screenPhase(.idle))
        #expect(phase.count == 0)
        #expect(screen.count == 0)
        store.send(.phase(.loading))
        store.send(.screenPhase(.done))
        #expect(phase.count == 1)
        #expect(screen.count == 1)
        store.send(.phase(.failed(Failure(reason: "a"))))
        store.send(.phase(.failed(Failure(reason: "a"))))
        #expect(phase.count == 2)
        store.send(.phase(.failed(Failure(reason: "b"))))
        #expect(phase.count == 3)
    }

    @Test func aDerivedValueOverAnEnumSeesItsCaseChange() {
        let store = makeStore()
        #expect(store[phaseName] == "idle")
        store.send(.phase(.loading))
        #expect(store[phaseName] == "loading")
        #expect(phaseName(store.state) == "loading")
    }

    // MARK: 7. existentials that change type

    @Test func anExistentialThatChangesTypeIsSeenEvenWithEqualFields() {
        let store = makeStore()
        let tool = ChangeCounter { _ = store.tool }
        store.send(.pen(1))   // another value, equal: unchanged
        #expect(tool.count == 0)
        store.send(.eraser(1))
        #expect(tool.count == 1)
        #expect(store[toolName] == "Eraser 1")
        store.send(.pen(1))
        #expect(tool.count == 2)
        #expect(store[toolName] == "Pen 1")
    }

    // MARK: 8. values behind a class, many readers armed

    @Test(arguments: [2, 40])
    func aValueBehindAClassIsSeenWhateverTheNumberOfReaders(rows: Int) {
        let store = makeStore()
        let armed = armRows(store, count: rows)
        let holder = store.scope(state: \.holder, embed: { (action: ExactAction) in action })
        let value = ChangeCounter { _ = holder.value }
        let holder7 = store.scope(state: \.rows[7].holder, embed: { (action: ExactAction) in action })
        let rowValue = ChangeCounter { _ = holder7.value }
        let direct = ChangeCounter { _ = store[dynamicMember: \ExactState.rows[7].holder.value] }
        store.send(.bump)
        store.send(.bump)   // the gate keeps what each property was
        store.send(.holderValue(1))
        #expect(value.count == 1)
        store.send(.rowValue(7, 1))
        #expect(rowValue.count == 1)
        #expect(direct.count == 1)
        store.send(.rowValue(7, 1))
        store.send(.holderValue(1))
        #expect(value.count == 1)
        #expect(rowValue.count == 1)
        #expect(armed.allSatisfy { $0.count == 0 })
    }

    @Test func rowsWithoutReferencesOnTheirPathStayGated() throws {
        let store = makeStore()
        let armed = armRows(store, count: 40)
        let root = try #require(store.box as? RootBox<ExactState, ExactAction>)
        store.send(.bump)
        store.send(.bump)
        #expect(root.tracker.lastComparisonCount < 10)
        store.send(.rowTitle(3, "x"))
        #expect(armed[3].count == 1)
        #expect(armed.reduce(0) { $0 + $1.count } == 1)
    }

    // MARK: 9. NaN

    @Test(arguments: [0, 40])
    func aNaNThatStaysNotifiesNobodyOnEitherSideOfTheGate(rows: Int) {
        let store = makeStore()
        let armed = armRows(store, count: rows)
        let level = ChangeCounter { _ = store.level }
        let reading = ChangeCounter { _ = store.reading }
        for _ in 0..<3 { store.send(.bump) }
        store.send(.level(.nan))
        store.send(.reading(.nan))
        #expect(level.count == 0)
        #expect(reading.count == 0)
        store.send(.level(1))
        store.send(.reading(2))
        #expect(level.count == 1)
        #expect(reading.count == 1)
        store.send(.level(.nan))
        store.send(.bump)
        #expect(level.count == 2)
        #expect(armed.allSatisfy { $0.count == 0 })
    }
}

/// Randomized: actions on enums whose description names no case, an existential, values
/// behind classes (read by 2 or by 40 scoped stores, below and above the gate) and NaN;
/// every reader is notified exactly when what it read changed, and the `Derived` values
/// follow. Knobs: `SWIDUX_EXACT_OBSERVATION_STEPS` (default 300), `SWIDUX_EXACT_OBSERVATION_SEED`.
@MainActor
@Suite("Observation model: exact for enums, existentials, references and NaN", .timeLimit(.minutes(1)))
struct ExactObservationModelTests {
    /// What the state holds, as the test keeps it.
    struct Model {
        var phase = "idle"
        var screen = "idle|"
        var screenPhase = "idle"
        var title = ""
        var tool = "Pen 1"
        var holder = 0
        var holderIdentity = 0
        var rowValues = [Int](repeating: 0, count: 40)
        var rowTitles = (0..<40).map { "\($0)" }
        var level = Double.nan.bitPattern
        var reading = Double.nan.bitPattern
    }

    struct Reader {
        let counter: ChangeCounter
        let project: (Model) -> String
        var seen: String
        var notified = 0
    }

    nonisolated static var steps: Int {
        ProcessInfo.processInfo.environment["SWIDUX_EXACT_OBSERVATION_STEPS"].flatMap(Int.init) ?? 300
    }

    nonisolated static var cases: [(seed: UInt64, rows: Int)] {
        var seeds: [UInt64] = [0xE1AC_0001, 0xE1AC_0002]
        if let seed = ProcessInfo.processInfo.environment["SWIDUX_EXACT_OBSERVATION_SEED"].flatMap(UInt64.init) {
            seeds = [seed]
        }
        return seeds.flatMap { seed in [(seed: seed, rows: 2), (seed: seed, rows: 40)] }
    }

    static func name(_ phase: Phase) -> String {
        switch phase {
        case .idle: "idle"
        case .loading: "loading"
        case .done: "done"
        case .failed(let failure): "failed \(failure.reason)"
        }
    }

    @Test(arguments: cases)
    func everyReaderIsNotifiedExactlyWhenWhatItReadChanged(seed: UInt64, rows: Int) {
        var rng = SeededRandomNumberGenerator(seed: seed)
        let store = Store(initialState: ExactState(), reducer: exactReducer, environment: ())
        var model = Model()
        var readers: [Reader] = []
        func add(_ project: @escaping (Model) -> String, _ read: @escaping @MainActor () -> Void) {
            readers.append(Reader(counter: ChangeCounter(read), project: project, seen: project(model)))
        }
        add({ $0.phase }) { _ = store.phase }
        add({ "\($0.screenPhase)|\($0.title)" }) { _ = store.screen }
        add({ $0.tool }) { _ = store.tool }
        add({ "\($0.level)" }) { _ = store.level }
        add({ "\($0.reading)" }) { _ = store.reading }
        add({ "\($0.holderIdentity)" }) { _ = store.holder }
        let holder = store.scope(state: \.holder, embed: { (action: ExactAction) in action })
        add({ "\($0.holder)" }) { _ = holder.value }
        for index in 0..<rows {
            let row = store.scope(state: \.rows[index], embed: { (action: ExactAction) in action })
            let held = store.scope(state: \.rows[index].holder, embed: { (action: ExactAction) in action })
            add({ $0.rowTitles[index] }) { _ = row.title }
            add({ "\($0.rowValues[index])" }) { _ = held.value }
        }
        let phases: [Phase] = [.idle, .loading, .done, .failed(Failure(reason: "a")), .failed(Failure(reason: "b"))]
        let levels = [Double.nan, 1, 2]
        for step in 0..<Self.steps {
            let row = Int.random(in: 0..<rows, using: &rng)
            let small = Int.random(in: 0...2, using: &rng)
            let action: ExactAction
            switch Int.random(in: 0..<11, using: &rng) {
            case 0:
                let phase = phases.randomElement(using: &rng)!
                action = .phase(phase)
                model.phase = Self.name(phase)
            case 1:
                let phase = phases.randomElement(using: &rng)!
                action = .screenPhase(phase)
                model.screenPhase = Self.name(phase)
            case 2:
                action = .title(small == 0 ? "a" : "b")
                model.title = small == 0 ? "a" : "b"
            case 3:
                action = .pen(1 + small % 2)
                model.tool = "Pen \(1 + small % 2)"
            case 4:
                action = .eraser(1 + small % 2)
                model.tool = "Eraser \(1 + small % 2)"
            case 5:
                action = .holderValue(small)
                model.holder = small
            case 6:
                action = .replaceHolder
                model.holderIdentity += 1
            case 7:
                action = .rowValue(row, small)
                model.rowValues[row] = small
            case 8:
                action = .rowTitle(row, small == 0 ? "x" : "y")
                model.rowTitles[row] = small == 0 ? "x" : "y"
            case 9:
                action = .level(levels[small])
                model.level = levels[small].bitPattern
            default:
                action = .reading(levels[small])
                model.reading = levels[small].bitPattern
            }
            store.send(action)
            for index in readers.indices {
                let now = readers[index].project(model)
                let expected = now != readers[index].seen ? 1 : 0
                let got = readers[index].counter.count - readers[index].notified
                #expect(got == expected, "step \(step), \(action), reader \(index): \(readers[index].seen) → \(now)")
                readers[index].notified = readers[index].counter.count
                if got > 0 { readers[index].seen = now }
            }
            #expect(store[phaseName] == model.phase.split(separator: " ").first.map(String.init))
            #expect(store[toolName] == model.tool)
        }
    }
}
