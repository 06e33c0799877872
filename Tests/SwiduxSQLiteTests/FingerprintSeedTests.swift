import Foundation
import SwiduxTestSupport
import Swidux
import Testing

/// An entity holding a set and a dictionary keyed by ids: both encode in iteration order.
struct SeedNote: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var tags: Set<String>
    var owners: [UUID: String]
}

/// A state whose parts hold sets and dictionaries, directly and inside entities.
struct SeedState: Equatable, Sendable {
    var notes = EntityStore<SeedNote>()
    var labels: Set<String> = []
    var days: [Date: Int] = [:]

    static var fingerprint: StateFingerprint<SeedState> {
        StateFingerprint<SeedState>().entities(\.notes).field(\.labels).field(\.days)
    }

    /// The same state in every process.
    static func sample() -> SeedState {
        func id(_ n: Int) -> UUID { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", n))! }
        let notes = (0..<20).map { n in
            SeedNote(id: n, tags: Set((0..<30).map { "tag \(n * 31 + $0)" }),
                     owners: Dictionary(uniqueKeysWithValues: (0..<10).map { (id(n * 10 + $0), "owner \($0)") }))
        }
        return SeedState(
            notes: EntityStore(notes), labels: Set((0..<200).map { "label \($0)" }),
            days: Dictionary(uniqueKeysWithValues: (0..<100).map { (Date(timeIntervalSince1970: Double($0) * 86_400), $0) }))
    }

    /// What a process reports: its fingerprint of the sample, then the order its sets iterate
    /// in (which shows whether the two processes hashed with different seeds).
    static func report() throws -> [String] {
        let state = sample()
        let prints = try StateFingerprinter(fingerprint).fingerprint(of: state)
        return [prints.joined(separator: "."), state.labels.joined(separator: ","), state.notes[3]!.tags.joined(separator: ",")]
    }
}

/// Fingerprints are equal in every process: the test binary runs again as a child with
/// another hash seed (`SWIFT_DETERMINISTIC_HASHING` set in one process and not in the
/// other: the Swift runtime then seeds `Hasher` with 0 in one and randomly in the other),
/// so that its sets and dictionaries iterate in another order. Linux: the child is the test
/// binary itself (`/proc/self/exe`).
@Suite("Fingerprints across processes", .timeLimit(.minutes(1)))
struct FingerprintSeedTests {
    static let outputVariable = "SWIDUX_FINGERPRINT_REPORT"

    @Test("A child process with another hash seed fingerprints sets, dictionaries and entities holding them alike",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/exe")))
    func sameInAnotherProcess() async throws {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let directory = try TemporaryDirectory()
        let output = directory.path("report.json"), log = directory.path("child.log")
        let seed = ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] == nil
            ? ["SWIFT_DETERMINISTIC_HASHING=1"] : ["-u", "SWIFT_DETERMINISTIC_HASHING"]
        let status = try await ChildProcess.run(
            ["/usr/bin/env"] + seed + ["\(Self.outputVariable)=\(output)", binary,
             "--testing-library", "swift-testing", "--filter", "FingerprintSeedTests/reportForParent"],
            output: log)
        #expect(status == 0, "\(String(decoding: fileBytes(log) ?? Data(), as: UTF8.self))")
        let child = try JSONDecoder().decode([String].self, from: try #require(fileBytes(output)))
        let parent = try SeedState.report()
        // The two processes iterate the same sets in other orders…
        #expect(child[1] != parent[1])
        #expect(child[2] != parent[2])
        // …and fingerprint them alike.
        #expect(child[0] == parent[0])
    }

    /// The child's side: writes its report where the parent said (nothing otherwise).
    @Test("(child process of sameInAnotherProcess)")
    func reportForParent() throws {
        guard let output = ProcessInfo.processInfo.environment[Self.outputVariable] else { return }
        try JSONEncoder().encode(try SeedState.report()).write(to: URL(fileURLWithPath: output))
    }
}
