import Foundation
import Testing
@testable import SwiduxCLI

@Suite("Templates")
struct TemplateTests {
    let notes = try! SwiftName("Notes", role: .project)
    let todo = try! SwiftName("Todo", role: .feature)

    func file(_ path: String, in files: [FileChange]) throws -> String {
        try #require(files.first { $0.path == path }).contents
    }

    @Test func theProjectFilesFollowTheSeedsOrder() {
        let paths = ProjectTemplates.files(name: notes, dependency: .path("/x/Swidux")).map(\.path)
        let seedOrder = ["AppState", "AppAction", "Effect", "AppEnvironment", "AppReducer", "AppStore", "NotesApp"]
            .map { "Sources/Notes/App/\($0).swift" }
        #expect(seedOrder.compactMap { paths.firstIndex(of: $0) } == seedOrder.compactMap { paths.firstIndex(of: $0) }.sorted())
        #expect(seedOrder.allSatisfy(paths.contains))
        for expected in ["Sources/Notes/Features/RootView.swift", "Sources/Notes/Models/Domain/.gitkeep",
                         "Sources/Notes/Models/Persistence/.gitkeep", "Sources/Notes/Services/AppDatabase.swift",
                         "Sources/NotesCLI/main.swift", "Tests/NotesTests/AppReducerTests.swift",
                         "Package.swift", ".swidux.json", ".gitignore", "README.md"] {
            #expect(paths.contains(expected), "\(expected)")
        }
    }

    @Test func theSeedsConventionsAreInTheFiles() throws {
        let files = ProjectTemplates.files(name: notes, dependency: .path("/x/Swidux"))
        let state = try file("Sources/Notes/App/AppState.swift", in: files)
        #expect(state.hasPrefix("@_exported import Swidux\n"))
        #expect(state.contains("var ui = UIState()"))
        let effect = try file("Sources/Notes/App/Effect.swift", in: files)
        #expect(effect.contains("typealias Effect = Swidux.Effect<AppAction>"))
        #expect(effect.contains("typealias Send = Swidux.Send<AppAction>"))
        #expect(try file("Sources/Notes/App/AppReducer.swift", in: files).contains("struct AppReducer: SwiduxReducer {"))
        #expect(try file("Sources/Notes/App/AppStore.swift", in: files).contains("typealias AppStore = Store<AppState, AppAction>"))
        let store = try file("Sources/Notes/App/AppStore.swift", in: files)
        #expect(store.contains("try database.sqlite.persistence(hydrating: &state, persistedEntities)"))
        #expect(store.contains("static var persistedEntities: [PersistedEntities<AppState>] {"))
        // One list: no separate hydration or writer registrations left.
        #expect(!store.contains("stateWriter") && !store.contains("swidux:hydrate") && !store.contains("swidux:writers"))
        let entry = try file("Sources/Notes/App/NotesApp.swift", in: files)
        #expect(entry.contains("#if canImport(SwiftUI)\nimport SwiftUI"))
        #expect(entry.contains("public struct NotesApp: App {"))
        #expect(try file("Sources/Notes/Features/RootView.swift", in: files).hasPrefix("#if canImport(SwiftUI)\n"))
        #expect(try file("Sources/Notes/Services/AppDatabase.swift", in: files).contains("SwiduxDatabase.inMemory(migrations: migrations)"))
        // No other file imports Swidux (seed rule 8).
        for change in files where change.path.hasSuffix(".swift") && change.path != "Sources/Notes/App/AppState.swift" {
            #expect(!change.contents.contains("import Swidux\n"), "\(change.path)")
        }
    }

    @Test func everyAnchorIsInTheFileThatFeaturesEdit() throws {
        let files = ProjectTemplates.files(name: notes, dependency: .path("/x/Swidux"))
        for insertion in FeatureTemplates.insertions(project: "Notes", feature: todo) {
            let text = try file(insertion.path, in: files)
            #expect(text.components(separatedBy: insertion.anchor.description).count == 2, "\(insertion.anchor) in \(insertion.path)")
        }
        #expect(PersistenceLayout(appStore: try file(FeatureTemplates.appStorePath(project: "Notes"), in: files)) == .persistedEntities)
    }

    @Test func theManifestDeclaresToolsPlatformsAndLanguageMode() throws {
        let manifest = ProjectTemplates.packageManifest("Notes", dependency: .path("/work/Swidux"))
        #expect(manifest.hasPrefix("// swift-tools-version: 6.1\n"))
        #expect(manifest.contains("platforms: [.macOS(.v14), .iOS(.v17)]"))
        #expect(manifest.contains("swiftLanguageModes: [.v6]"))
        #expect(manifest.contains(#".package(path: "/work/Swidux")"#))
        #expect(manifest.contains(#".product(name: "SwiduxSQLite", package: "Swidux")"#))
        #expect(manifest.contains(#".executableTarget(name: "NotesCLI", dependencies: ["Notes"])"#))
        #expect(manifest.contains(#".testTarget(name: "NotesTests", dependencies: ["Notes"])"#))
    }

    @Test func aURLDependencyUsesTheVersionAndTheRepositorysIdentity() {
        let dependency = SwiduxDependency.url("https://github.com/me/Swidux.git", from: "1.2.0")
        #expect(dependency.packageDeclaration == #".package(url: "https://github.com/me/Swidux.git", from: "1.2.0")"#)
        #expect(dependency.packageIdentity == "Swidux")
        #expect(SwiduxDependency.path("/home/me/checkout").packageIdentity == "checkout")
    }

    @Test func pathsAreEscapedAsSwiftStringLiterals() {
        #expect(swiftStringLiteral(#"/a "quoted"\dir"#) == #""/a \"quoted\"\\dir""#)
        #expect(swiftStringLiteral("line\nbreak") == #""line\nbreak""#)
    }

    @Test func featureFilesFollowTheNamingConventions() {
        let files = FeatureTemplates.newFiles(project: "Notes", feature: todo)
        let byPath = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.contents) })
        #expect(byPath["Sources/Notes/Models/Domain/Todo.swift"]?.contains("struct Todo: Identifiable, Equatable, Sendable, Codable {") == true)
        #expect(byPath["Sources/Notes/Models/Persistence/TodoTable.swift"]?.contains(#"EntityTable<Todo>(named: "todos")"#) == true)
        #expect(byPath["Sources/Notes/Features/Todo/TodoAction.swift"]?.contains("enum TodoAction: Equatable, Sendable {") == true)
        #expect(byPath["Sources/Notes/Features/Todo/TodoReducer.swift"]?.contains("struct TodoReducer: SwiduxReducer {") == true)
        #expect(byPath["Sources/Notes/Features/Todo/TodoListView.swift"]?.hasPrefix("#if canImport(SwiftUI)\n") == true)
        #expect(byPath["Tests/NotesTests/TodoReducerTests.swift"]?.contains("import Testing") == true)
        #expect(byPath["Tests/NotesTests/TodoPersistenceTests.swift"]?.contains("try await store.flush()") == true)
    }

    @Test func featureInsertionsWireStateActionReducerAndWriter() {
        let insertions = FeatureTemplates.insertions(project: "Notes", feature: todo)
        let snippets = Dictionary(grouping: insertions, by: \.anchor).mapValues { $0.map(\.snippet).joined() }
        #expect(snippets[.featureStates]?.contains("var todos = EntityStore<Todo>()") == true)
        #expect(snippets[.featureActions]?.contains("case todo(TodoAction)") == true)
        #expect(snippets[.featureReducers]?.contains("return TodoReducer().reduce(state: &state, action: action, environment: environment)") == true)
        #expect(snippets[.persistedEntities] == #".entities(\.todos, in: TodoTable.table),"#)
        #expect(snippets[.writers] == nil && snippets[.hydrate] == nil)
        #expect(snippets[.migrations]?.contains(#"migrations.register("create todos")"#) == true)
    }

    @Test func aProjectGeneratedWithHydrateAndWritersAnchorsGetsTheTwoLinesItHadBefore() {
        let insertions = FeatureTemplates.insertions(project: "Notes", feature: todo, layout: .hydrateAndWriters)
        let snippets = Dictionary(grouping: insertions, by: \.anchor).mapValues { $0.map(\.snippet).joined() }
        #expect(snippets[.hydrate] == "state.todos = try await database.sqlite.hydrate(TodoTable.table)")
        #expect(snippets[.writers] == #"database.sqlite.stateWriter(for: \AppState.todos, table: TodoTable.table),"#)
        #expect(snippets[.persistedEntities] == nil)
        // Everything else is the same in both layouts.
        let others = { (layout: PersistenceLayout) in
            FeatureTemplates.insertions(project: "Notes", feature: todo, layout: layout)
                .filter { ![.hydrate, .writers, .persistedEntities].contains($0.anchor) }.map { "\($0.path) \($0.anchor) \($0.snippet)" }
        }
        #expect(others(.hydrateAndWriters) == others(.persistedEntities))
    }

    @Test func theLayoutIsReadFromTheAnchorsOfAppStore() {
        #expect(PersistenceLayout(appStore: "    // swidux:persisted-entities\n") == .persistedEntities)
        #expect(PersistenceLayout(appStore: "  // swidux:hydrate\n  // swidux:writers\n") == .hydrateAndWriters)
        // One old anchor left: the old form, so that the other one is reported missing by name.
        #expect(PersistenceLayout(appStore: "// swidux:writers\n") == .hydrateAndWriters)
        // No anchor at all: the current form (its anchor is the one reported missing).
        #expect(PersistenceLayout(appStore: "// swidux:hydrated\n") == .persistedEntities)
        #expect(PersistenceLayout(appStore: "") == .persistedEntities)
    }
}
