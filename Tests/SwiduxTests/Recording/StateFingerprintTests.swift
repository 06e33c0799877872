import Foundation
import Testing
@testable import Swidux

@MainActor
@Suite("State fingerprint", .timeLimit(.minutes(1)))
struct StateFingerprintTests {
    /// The fingerprint of `state` computed from scratch.
    func fresh(_ state: Shelf) throws -> [String] {
        try StateFingerprinter(Shelf.sessionFingerprint).fingerprint(of: state)
    }

    @Test("Kept up to date step by step, it equals the fingerprint computed from scratch (random edits, moves, sorts)")
    func incrementalEqualsFresh() throws {
        let steps = Int(ProcessInfo.processInfo.environment["SWIDUX_FINGERPRINT_STEPS"] ?? "") ?? 400
        var random = SystemRandomNumberGenerator()
        var state = Shelf()
        let incremental = StateFingerprinter(Shelf.sessionFingerprint)
        _ = try incremental.fingerprint(of: state)
        for step in 0..<steps {
            let id = Int.random(in: 0..<40, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4: state.books[id] = Book(id: id, title: "t\(step)")
            case 4..<6: state.books.modify(id) { $0.read.toggle() }
            case 6..<8: state.books[id] = nil
            case 8: state.note = "n\(step % 3)"
            default:
                if Bool.random(using: &random) { state.books.sort { $0.title < $1.title } }
                else if state.books.count > 1 { state.books.move(fromOffsets: [0], toOffset: state.books.count) }
            }
            #expect(try incremental.fingerprint(of: state) == fresh(state), "step \(step)")
        }
    }

    @Test("Order counts: the same entities in another order have another fingerprint")
    func orderMatters() throws {
        let a = Shelf(books: [Book(id: 1, title: "a"), Book(id: 2, title: "b")])
        let b = Shelf(books: [Book(id: 2, title: "b"), Book(id: 1, title: "a")])
        #expect(try fresh(a)[0] != fresh(b)[0])
        #expect(try fresh(a) == fresh(Shelf(books: [Book(id: 1, title: "a"), Book(id: 2, title: "b")])))
    }

    @Test("After one change among 10,000 entities, only the changed entity is hashed (O(changed))")
    func costIsWhatChanged() throws {
        var state = Shelf(books: EntityStore((0..<10_000).map { Book(id: $0, title: "b\($0)") }))
        let fingerprinter = StateFingerprinter(Shelf.sessionFingerprint)
        _ = try fingerprinter.fingerprint(of: state)
        let start = fingerprinter.hashedValues
        state.books.modify(5_000) { $0.read = true }
        _ = try fingerprinter.fingerprint(of: state)
        #expect(fingerprinter.hashedValues - start == 2)   // the entity and its id
        state.books[10_001] = Book(id: 10_001, title: "new")
        state.books[3] = nil
        _ = try fingerprinter.fingerprint(of: state)
        #expect(fingerprinter.hashedValues - start == 4)
        _ = try fingerprinter.fingerprint(of: state)   // nothing changed
        #expect(fingerprinter.hashedValues - start == 4)
    }
}
