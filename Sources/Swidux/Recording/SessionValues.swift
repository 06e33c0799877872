import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The current time and fresh ids for a reducer's environment, reproducible by a replay.
///
/// A reducer that reads the clock or makes ids (`createdAt: environment.now()`) gives
/// another result each time it runs, so a replay of a recorded session would differ from
/// the recording. Put a `SessionValues` in the environment instead: while a
/// ``SessionRecorder`` records an action, ``now()`` is the time recorded with the action
/// and ``uuid()`` derives ids from the recording's seed and the step; a replay
/// (`TestStore(replaying:…)`) sets the same values, so the reducer gives the same result.
/// Outside a recorded or replayed step they are the real time and random ids, and so they
/// are for every other caller during a step: only the thread that runs the step (the main
/// actor's, where the store reduces) gets the step's values. An effect that makes ids on
/// another thread meanwhile gets random ones and takes none of the step's, so the reducer
/// gets the same ids in the recording and in its replay.
///
/// ```swift
/// let values = SessionValues()
/// let environment = AppEnvironment(now: values.now, uuid: values.uuid)
/// let recorder = try SessionRecorder<AppState, AppAction>(
///     file: url, fingerprint: fingerprint, values: values)
/// ```
public final class SessionValues: Sendable {
    private struct State {
        /// The step being recorded or replayed, and the thread that runs it (its reduce).
        var step: (index: Int, milliseconds: Int64, thread: pthread_t)?
        var made: UInt64 = 0
        /// The seed of the ids made during steps (a recording writes it in its header).
        var seed: UInt64
    }
    private let state: LockedValue<State>

    /// Values with a random seed.
    ///
    /// ```swift
    /// let values = SessionValues()
    /// ```
    public init() {
        state = LockedValue(State(seed: UInt64.random(in: 1...UInt64.max)))
    }

    /// The time of the step being recorded or replayed (on the thread that runs it), else
    /// the current time.
    ///
    /// ```swift
    /// let item = TodoItem(title: title, createdAt: values.now())
    /// ```
    @Sendable public func now() -> Date {
        let milliseconds = state.withLock { state -> Int64? in
            guard let step = state.step, Self.isCurrent(step.thread) else { return nil }
            return step.milliseconds
        }
        guard let milliseconds else { return Date() }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// An id derived from the seed, the step and how many ids the step made before, during
    /// a recorded or replayed step on the thread that runs it; else a random one.
    ///
    /// ```swift
    /// let tagID = values.uuid()
    /// ```
    @Sendable public func uuid() -> UUID {
        let mixed = state.withLock { state -> UInt64? in
            guard let step = state.step, Self.isCurrent(step.thread) else { return nil }
            state.made += 1
            return state.seed ^ UInt64(truncatingIfNeeded: step.index) &* 0x9E37_79B9_7F4A_7C15 ^ state.made &* 0xBF58_476D_1CE4_E5B9
        }
        guard var state = mixed else { return UUID() }
        let high = Fingerprinting.splitMix(&state), low = Fingerprinting.splitMix(&state)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40   // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80   // variant 1
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The seed of the ids made during steps.
    var seed: UInt64 {
        get { state.withLock { $0.seed } }
        set { state.withLock { $0.seed = newValue } }
    }

    /// Starts step `index`, at `milliseconds` since 1970 (recording or replay), on the
    /// calling thread: the one that runs the step's reduce. Other threads keep real values.
    package func beginStep(_ index: Int, milliseconds: Int64) {
        let thread = pthread_self()
        state.withLock { state in
            state.step = (index, milliseconds, thread)
            state.made = 0
        }
    }

    /// Whether the calling thread is `thread` (the step's).
    private static func isCurrent(_ thread: pthread_t) -> Bool {
        pthread_equal(pthread_self(), thread) != 0
    }

    /// Ends the step: real time and random ids again.
    package func endStep() {
        state.withLock { $0.step = nil }
    }

    /// Sets the seed (a replay takes the recording's).
    package func useSeed(_ seed: UInt64) { self.seed = seed }
}
