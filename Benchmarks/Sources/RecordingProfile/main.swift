import BenchmarkSupport
import Foundation
import Swidux

// `RecordingProfile on|off SENDS`: SENDS sends, each changing one entity of a 100,000-entity
// store (persistence on, a no-op writer), with a `SessionRecorder` installed (`on`) or not.
// The recorder's writer never runs (a one-hour batch delay): what is left is the main
// actor's cost, to read under a profiler. The marginal cost of a send is the difference
// between two runs with different SENDS (the set-up cancels out):
//
//     SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind .build/release/RecordingProfile on 5000
//     SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind .build/release/RecordingProfile on 10000

enum ProfiledAction: Codable, Sendable { case touch(UUID) }

struct ProfiledReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: ProfiledAction, environment: Void) -> Effect<ProfiledAction>? {
        switch action { case .touch(let id): state.items.modify(id) { $0.count &+= 1 } }
        return nil
    }
}

@MainActor
func run() throws {
    let arguments = CommandLine.arguments
    let on = arguments.count > 1 && arguments[1] == "on"
    let sends = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000
    let persistence = PersistenceMiddleware(
        writers: [StateWriter(keyPath: \AppState.items) { _, _ in }], debounce: .seconds(3600))
    persistence.loopWarningThreshold = .max
    let items = Item.make(100_000, seed: 7)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recording-profile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let recorder = try SessionRecorder<AppState, ProfiledAction>(
        file: folder.appendingPathComponent("session.jsonl"), fingerprint: StateFingerprint<AppState>().entities(\.items),
        maxFileSize: 1 << 30, batchDelay: .seconds(3600))
    let store = Store(initialState: AppState(items: EntityStore(items)), reducer: ProfiledReducer(), environment: (),
                      middleware: on ? [recorder] : [], persistence: persistence)
    let ids = stride(from: 0, to: 100_000, by: 1000).map { items[$0].id }
    store.send(.touch(ids[0]))
    let start = ContinuousClock.now
    for index in 0..<sends { store.send(.touch(ids[index % ids.count])) }
    print(on ? "on" : "off", (ContinuousClock.now - start) / sends, "per send")
}

try MainActor.assumeIsolated { try run() }
