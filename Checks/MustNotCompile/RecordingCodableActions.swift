// expected: compiles
// The control of RecordingNonCodableActions.swift: the same code with `Codable` actions
// compiles, so that the error there comes from the missing conformance, not from the set-up.
import Foundation
import Swidux

struct CounterState {}
enum CounterAction: Codable, Sendable { case increment }

@MainActor func makeRecorder() throws {
    _ = try SessionRecorder<CounterState, CounterAction>(
        file: URL(fileURLWithPath: "session.jsonl"), fingerprint: StateFingerprint<CounterState>())
}
