import Foundation
@testable import Swidux

/// A small app for the recording tests: books in an entity store, a note field, an effect.
struct Book: Identifiable, Equatable, Sendable, Codable {
    var id: Int
    var title: String
    var read = false
}

struct Shelf: Equatable, Sendable {
    var books = EntityStore<Book>()
    var note = ""
}

extension Shelf: SessionFingerprinted {
    static var sessionFingerprint: StateFingerprint<Shelf> {
        StateFingerprint().entities(\.books).field(\.note)
    }
}

enum ShelfAction: Equatable, Sendable, Codable {
    case add(Int, String)
    case markRead(Int)
    case remove(Int)
    case note(String)
    /// Starts an effect that sends `.note("loaded")`.
    case load
    case password(String)
    /// Sorts the books by descending id.
    case reverse
}

struct ShelfReducer: SwiduxReducer {
    func reduce(state: inout Shelf, action: ShelfAction, environment: Void) -> Effect<ShelfAction>? {
        switch action {
        case .add(let id, let title): state.books[id] = Book(id: id, title: title)
        case .markRead(let id): state.books.modify(id) { $0.read = true }
        case .remove(let id): state.books[id] = nil
        case .note(let text): state.note = text
        case .load: return .run { .note("loaded") }
        case .password: break
        case .reverse: state.books.sort { $0.id > $1.id }
        }
        return nil
    }
}

/// A fresh folder for one test's files.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-recording-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The lines of a file.
func lines(of url: URL) throws -> [String] {
    try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
}
