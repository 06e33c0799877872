// expected-error: does not conform to protocol 'Decodable'
// A `SessionRecorder` needs `Codable` actions (to record and replay them): an app whose actions
// are not gets a compile-time error naming the protocol, not a run-time failure.
import Foundation
import Swidux

struct CounterState {}
enum CounterAction: Sendable { case increment }

@MainActor func makeRecorder() throws {
    _ = try SessionRecorder<CounterState, CounterAction>(
        file: URL(fileURLWithPath: "session.jsonl"), fingerprint: StateFingerprint<CounterState>())
}
