import Foundation
import SwiduxSQLite
import Testing

/// The README's quick start cannot rot: its feature and its test are these files, quoted
/// verbatim, and they compile and run here.
@MainActor
struct ReadmeQuickStartTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The text of the fenced block that follows `<!-- quick-start: FILE -->` in the README.
    static func quotedBlock(of file: String) throws -> String? {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- quick-start: \(file) -->\n```swift\n"
        guard let start = readme.range(of: marker) else { return nil }
        guard let end = readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex) else { return nil }
        return String(readme[start.upperBound..<end.lowerBound]) + "\n"
    }

    @Test(arguments: ["TodoFeature.swift", "TodoFeatureTests.swift"])
    func theReadmeQuotesTheFileVerbatim(file: String) throws {
        let source = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Tests/QuickStartTests/\(file)"), encoding: .utf8)
        let quoted = try Self.quotedBlock(of: "Tests/QuickStartTests/\(file)")
        #expect(quoted != nil, "README.md has no block marked <!-- quick-start: Tests/QuickStartTests/\(file) -->")
        #expect(quoted == source, "README.md's quick start differs from Tests/QuickStartTests/\(file): copy the file into the README")
    }

    @Test func theStoreCreatesItsDirectoryAndKeepsTheTodosAcrossLaunches() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-quick-start-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        let url = root.appendingPathComponent("Library/Application Support/todos.sqlite")

        var store: Store<TodoState, TodoAction>? = try await TodoDatabase.makeStore(at: url)
        store?.send(.setDraft("Buy milk"))
        store?.send(.add)
        let id = try #require(store?.todos.ids.first)
        store?.send(.toggle(id))
        try await store?.flush()
        store = nil

        let relaunched = try await TodoDatabase.makeStore(at: url)
        #expect(relaunched.todos.values == [Todo(id: id, title: "Buy milk", done: true)])
        #expect(relaunched.draft == "")
        relaunched.send(.delete(id))
        try await relaunched.flush()
        #expect(try await TodoDatabase.makeStore(at: url).todos.isEmpty)
    }

    /// The README's view passes `\.draft` and `TodoAction.setDraft` to `store.binding(_:send:)`,
    /// which takes a sendable key path and a sendable closure (SwiftUI is not on Linux: this
    /// checks the types of those two arguments).
    @Test func theBindingArgumentsOfTheReadmeViewAreSendable() {
        let keyPath: KeyPath<TodoState, String> & Sendable = \.draft
        let send: @Sendable (String) -> TodoAction = TodoAction.setDraft
        #expect(TodoState()[keyPath: keyPath] == "")
        #expect(send("x") == .setDraft("x"))
    }

}
