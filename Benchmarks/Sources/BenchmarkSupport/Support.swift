import Foundation
import Observation
import Swidux

// Shared pieces of the Swidux benchmarks: the entity, the state, the reducer, the
// hand-written seed-002 `AppStore` baseline, and interleaved A/B timing.

/// The entity every benchmark uses: small, Codable, with a fixed-size id.
public struct Item: Identifiable, Equatable, Hashable, Codable, Sendable {
    public var id: UUID
    public var title: String
    public var count: Int
    public var done: Bool

    public init(id: UUID = UUID(), title: String, count: Int = 0, done: Bool = false) {
        self.id = id
        self.title = title
        self.count = count
        self.done = done
    }

    /// `n` items with distinct titles and pseudo-random counts (deterministic).
    public static func make(_ n: Int, seed: UInt64 = 42) -> [Item] {
        var generator = SplitMix64(seed: seed)
        return (0..<n).map { i in
            Item(id: UUID(), title: "Item \(i)", count: Int(generator.next() % 1_000_000))
        }
    }
}

/// UI state slice: small and Equatable, as in seed 002.
public struct UIState: Equatable, Sendable {
    public var counter = 0
    public var selection: UUID?
    public var filter = ""
    public init() {}
}

/// The benchmarked application state (seed 002 shape).
public struct AppState: Sendable {
    public var items: EntityStore<Item>
    public var ui: UIState
    public init(items: EntityStore<Item> = EntityStore(), ui: UIState = UIState()) {
        self.items = items
        self.ui = ui
    }
}

public enum AppAction: Sendable {
    /// The trivial action: bumps a counter in `ui`.
    case bump
    /// Changes one entity.
    case touch(UUID)
}

public struct AppReducer: SwiduxReducer {
    public init() {}
    public func reduce(state: inout AppState, action: AppAction, environment: Void) -> Effect<AppAction>? {
        switch action {
        case .bump:
            state.ui.counter &+= 1
        case .touch(let id):
            state.items.modify(id) { $0.count &+= 1 }
        }
        return nil
    }
}

/// The hand-written store of seed 002: one stored `@Observable` property per slice, a
/// snapshot `AppState` rebuilt on every `send`, equality-guarded write-back (rule 9).
@MainActor
@Observable
public final class HandWrittenAppStore: SwiduxDispatcher {
    public var items: EntityStore<Item>
    public var ui: UIState
    @ObservationIgnored let reducer = AppReducer()
    @ObservationIgnored let persistence: PersistenceMiddleware<AppState>?

    public init(items: EntityStore<Item>, ui: UIState = UIState(), persistence: PersistenceMiddleware<AppState>? = nil) {
        self.items = items
        self.ui = ui
        self.persistence = persistence
    }

    public func send(_ action: AppAction) {
        var state = AppState(items: items, ui: ui)
        _ = reducer.reduce(state: &state, action: action, environment: ())
        persistence?.afterReduce(state: &state)
        if items != state.items { items = state.items }
        if ui != state.ui { ui = state.ui }
    }
}

/// A deterministic generator so that runs are comparable.
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Timing

/// Nanoseconds of one run of `body`.
@inline(never)
public func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
}

/// Nanoseconds of one run of an async `body`.
nonisolated(nonsending) public func nanoseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
}

public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Medians of `rounds` interleaved timings of several variants (A B C, then B C A, …), so
/// that a noisy neighbour slows every variant alike. Each closure returns its own time
/// in nanoseconds (so it can exclude its setup).
public func interleaved(rounds: Int, _ variants: [() -> Double]) -> [Double] {
    var samples = Array(repeating: [Double](), count: variants.count)
    for round in 0..<rounds {
        for k in 0..<variants.count {
            let v = (k + round) % variants.count
            samples[v].append(variants[v]())
        }
    }
    return samples.map(median)
}

/// A ratio as an integer metric: ×1000 (package-benchmark metrics are integers).
public func permille(_ ratio: Double) -> Int { Int((ratio * 1000).rounded()) }

/// Prints a result line the README table is filled from (grep "RESULT").
public func report(_ name: String, _ fields: KeyValuePairs<String, String>) {
    let text = fields.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    print("RESULT \(name): \(text)")
    fflush(nil)
}

public func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
