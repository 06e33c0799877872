import Foundation

/// A part of a ``StateFingerprint`` compared with `==` and hashed whole when it changed.
struct FieldFingerprintPart<State, Value: Codable & Equatable & Sendable>: FingerprintPart {
    let keyPath: WritableKeyPath<State, Value>
    let name: String
    let makeCapture: () -> FingerprintCapture<State>

    func makeDigest() -> any FingerprintDigest { FieldFingerprintDigest<Value>() }
    func captureAll(_ state: State) -> any Sendable { state[keyPath: keyPath] }
    /// Sets the value a recording's snapshot holds (external changes touch entity stores only).
    func applyExternal(_ payload: String, to state: inout State) throws {
        state[keyPath: keyPath] = try JSONDecoder().decode(Value.self, from: Data(payload.utf8))
    }
}

final class FieldFingerprintDigest<Value: Codable & Sendable>: FingerprintDigest {
    private(set) var value: UInt64 = 0

    func apply(_ capture: any Sendable, using hashing: Fingerprinting) throws {
        guard let field = capture as? Value else { return }
        value = try hashing.hash(field)
    }

    func externalPayload(_ capture: any Sendable, placed: Bool) throws -> String? {
        guard let field = capture as? Value else { return nil }
        return String(decoding: try JSONEncoder().encode(field), as: UTF8.self)
    }
}
