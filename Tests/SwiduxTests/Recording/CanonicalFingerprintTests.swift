import Foundation
import Testing
@testable import Swidux

/// An entity holding collections that encode in their iteration order.
struct Labelled: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var tags: Set<String>
    var scores: [UUID: Int]
}

/// A state whose parts hold sets and dictionaries, directly and inside entities.
struct Labels: Equatable, Sendable {
    var items = EntityStore<Labelled>()
    var labels: Set<String> = []
    var byDay: [Date: String] = [:]
    var nested: [Set<String>] = []

    static var fingerprint: StateFingerprint<Labels> {
        StateFingerprint<Labels>()
            .entities(\.items).field(\.labels).field(\.byDay).field(\.nested)
    }
}

enum LabelAction: Codable, Equatable, Sendable {
    case label(String)
}

struct LabelReducer: SwiduxReducer {
    func reduce(state: inout Labels, action: LabelAction, environment: Void) -> Effect<LabelAction>? {
        switch action {
        case .label(let label): state.labels.insert(label)
        }
        return nil
    }
}

/// The id `n` as a UUID (the same in every process).
func fixedUUID(_ n: Int) -> UUID {
    var bytes = [UInt8](repeating: 0, count: 16)
    for index in 0..<8 { bytes[15 - index] = UInt8(truncatingIfNeeded: n >> (8 * index)) }
    return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                       bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
}

@MainActor
@Suite("Fingerprints of sets and dictionaries", .timeLimit(.minutes(1)))
struct CanonicalFingerprintTests {
    /// `kept` as a set that held 4,000 elements, then lost the others (its storage and its
    /// iteration order are those of the big set).
    func shrunk(to kept: [String]) -> Set<String> {
        var set = Set((0..<4_000).map { "extra \($0)" })
        set.formUnion(kept)
        set.subtract((0..<4_000).map { "extra \($0)" })
        return set
    }

    @Test("A set shrunk from 4,000 elements and an equal one built fresh have the same fingerprint")
    func shrunkSet() throws {
        let kept = (0..<60).map { "tag \($0)" }
        let big = shrunk(to: kept), fresh = Set(kept.reversed())
        #expect(big == fresh)
        // What made them differ: the same elements, iterated in another order.
        #expect(Array(big) != Array(fresh))
        let hashing = Fingerprinting()
        #expect(try hashing.hash(big) == hashing.hash(fresh))
        #expect(try hashing.hash(big) != hashing.hash(Set(kept.dropLast())))
        // In an entity, in a dictionary keyed by UUIDs, in an array of sets.
        var scoresBig = Dictionary(uniqueKeysWithValues: (0..<4_000).map { (fixedUUID($0), $0) })
        for n in 40..<4_000 { scoresBig[fixedUUID(n)] = nil }
        let scoresFresh = Dictionary(uniqueKeysWithValues: (0..<40).reversed().map { (fixedUUID($0), $0) })
        #expect(scoresBig == scoresFresh)
        let a = Labelled(id: 1, tags: big, scores: scoresBig), b = Labelled(id: 1, tags: fresh, scores: scoresFresh)
        #expect(try hashing.hash(a) == hashing.hash(b))
        #expect(try hashing.hash([big, fresh]) == hashing.hash([fresh, big]))
    }

    @Test("Equal states built differently have equal fingerprints part by part")
    func equalStates() throws {
        let kept = (0..<50).map { "label \($0)" }
        var days: [Date: String] = [:]
        for day in 0..<3_000 { days[Date(timeIntervalSince1970: Double(day) * 86_400)] = "d\(day)" }
        for day in 0..<3_000 where day % 10 != 7 { days[Date(timeIntervalSince1970: Double(day) * 86_400)] = nil }
        let a = Labels(
            items: EntityStore([Labelled(id: 1, tags: shrunk(to: kept), scores: [fixedUUID(1): 1, fixedUUID(2): 2])]),
            labels: shrunk(to: kept), byDay: days, nested: [shrunk(to: ["x", "y", "z"])])
        let b = Labels(
            items: EntityStore([Labelled(id: 1, tags: Set(kept.reversed()), scores: [fixedUUID(2): 2, fixedUUID(1): 1])]),
            labels: Set(kept.reversed()),
            byDay: Dictionary(uniqueKeysWithValues: days.sorted { $0.key > $1.key }.map { ($0.key, $0.value) }),
            nested: [["z", "y", "x"]])
        #expect(a == b)
        #expect(try StateFingerprinter(Labels.fingerprint).fingerprint(of: a) == StateFingerprinter(Labels.fingerprint).fingerprint(of: b))
    }

    @Test("A recording whose state holds a set shrunk from 4,000 elements replays from an equal state built fresh")
    func replayFromEqualState() async throws {
        let file = try temporaryFolder().appendingPathComponent("session.jsonl")
        let kept = (0..<60).map { "tag \($0)" }
        let recorder = try SessionRecorder<Labels, LabelAction>(file: file, fingerprint: Labels.fingerprint)
        let store = Store(initialState: Labels(labels: shrunk(to: kept)), reducer: LabelReducer(), environment: (),
                          middleware: [recorder])
        store.send(.label("new"))
        store.send(.label("newer"))
        try await recorder.flush()

        let recording = try SessionRecording<LabelAction>(contentsOf: file)
        let replay = Store(initialState: Labels(labels: Set(kept.reversed())), reducer: LabelReducer().ignoringEffects(), environment: ())
        let replayer = try SessionReplayer(recording: recording, store: replay, fingerprint: Labels.fingerprint)
        #expect(replayer.initialDifferences.isEmpty)
        var replayed = 0
        while let step = try replayer.next() {
            #expect(step.matches, "step \(step.step.index): \(step.differingParts)")
            replayed += 1
        }
        #expect(replayed == 2)
    }

    @Test("Values without sets or dictionaries hash as their plain JSON did (recordings made before still replay)")
    func plainValuesUnchanged() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let book = Book(id: 3, title: "Dune / \"Messiah\" é", read: true)
        #expect(try Fingerprinting().hash(book) == Fingerprinting.fnv1a(encoder.encode(book)))
        let mixed: [String: [Double?]] = ["b": [1.5, nil, -0.25], "a": [1e100]]
        #expect(try Fingerprinting().hash(mixed) == Fingerprinting.fnv1a(encoder.encode(mixed)))
        let other = (Data([1, 2, 3]), URL(string: "https://example.com/a?b=c")!, Decimal(string: "12.50")!, Date(timeIntervalSince1970: 12))
        #expect(try Fingerprinting().hash(other.0) == Fingerprinting.fnv1a(encoder.encode(other.0)))
        #expect(try Fingerprinting().hash(other.1) == Fingerprinting.fnv1a(encoder.encode(other.1)))
        #expect(try Fingerprinting().hash([other.2]) == Fingerprinting.fnv1a(encoder.encode([other.2])))
        #expect(try Fingerprinting().hash(other.3) == Fingerprinting.fnv1a(encoder.encode(other.3)))
        #expect(try Fingerprinting().hash(fixedUUID(7)) == Fingerprinting.fnv1a(encoder.encode(fixedUUID(7))))
    }
}
