import Foundation
import Testing
@testable import SwiduxCLI

@Suite("swidux add feature")
struct AddFeatureCommandTests {
    @Test func addsTheFilesEditsTheAnchorsAndRecordsTheFeature() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        let before = snapshot(root)
        #expect(runSwidux(["add", "feature", "Todo", "--path", root.path]).code == 0)
        #expect(runSwidux(["add", "feature", "Tag", "--path", root.appendingPathComponent("Sources").path]).code == 0)

        let after = snapshot(root)
        let created = Set(after.keys).subtracting(before.keys)
        for name in ["Todo", "Tag"] {
            for path in ["/Sources/Notes/Models/Domain/\(name).swift", "/Sources/Notes/Models/Persistence/\(name)Table.swift",
                         "/Sources/Notes/Features/\(name)/\(name)Action.swift", "/Sources/Notes/Features/\(name)/\(name)Reducer.swift",
                         "/Sources/Notes/Features/\(name)/\(name)ListView.swift", "/Tests/NotesTests/\(name)ReducerTests.swift"] {
                #expect(created.contains(path), "\(path)")
            }
        }
        #expect(!after.keys.contains { $0.contains(".swidux-staging") })

        let store = try String(contentsOf: root.appendingPathComponent("Sources/Notes/App/AppStore.swift"), encoding: .utf8)
        // One line per entity store, children first: the newest feature first, below the anchor.
        #expect(store.contains("""
                        // swidux:persisted-entities
                        .entities(\\.tags, in: TagTable.table),
                        .entities(\\.todos, in: TodoTable.table),
                    ]
            """))
        #expect(store.components(separatedBy: "in: TodoTable.table").count == 2)
        #expect(!store.contains("stateWriter"))

        let state = try String(contentsOf: root.appendingPathComponent("Sources/Notes/App/AppState.swift"), encoding: .utf8)
        #expect(state.contains("    var todos = EntityStore<Todo>()\n"))
        #expect(state.contains("    var tags = EntityStore<Tag>()\n"))
        let marker = try ProjectMarker.read(from: root.appendingPathComponent(ProjectMarker.fileName))
        #expect(marker.features == ["Todo", "Tag"])
    }

    /// `AppStore.swift` as `swidux new` wrote it before the one-line form: hydration and
    /// writers registered separately, at two anchors.
    static let appStoreWithHydrateAndWriters = """
        /// The app's store: Swidux's generic `Store` over this app's state and actions.
        typealias AppStore = Store<AppState, AppAction>

        extension Store where State == AppState, Action == AppAction {
            static func live(
                database: AppDatabase,
                environment: AppEnvironment = AppEnvironment()
            ) async throws -> AppStore {
                var state = AppState()
                try await AppStore.hydrate(&state, from: database)
                return AppStore(
                    initialState: state,
                    reducer: AppReducer(),
                    environment: environment,
                    persistence: AppStore.persistence(database: database)
                )
            }

            static func hydrate(_ state: inout AppState, from database: AppDatabase) async throws {
                // swidux:hydrate
            }

            static func persistence(database: AppDatabase) -> PersistenceMiddleware<AppState> {
                PersistenceMiddleware(writers: [
                    // swidux:writers
                ])
            }
        }

        """

    @Test func aProjectGeneratedWithHydrateAndWritersAnchorsKeepsGettingBoth() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        let url = root.appendingPathComponent("Sources/Notes/App/AppStore.swift")
        try Data(Self.appStoreWithHydrateAndWriters.utf8).write(to: url)
        #expect(runSwidux(["add", "feature", "Todo", "--path", root.path]).code == 0)
        #expect(runSwidux(["add", "feature", "Tag", "--path", root.path]).code == 0)

        let store = try String(contentsOf: url, encoding: .utf8)
        #expect(store.contains("""
                    state.todos = try await database.sqlite.hydrate(TodoTable.table)
                    state.tags = try await database.sqlite.hydrate(TagTable.table)
                    // swidux:hydrate
            """))
        #expect(store.contains("""
                        database.sqlite.stateWriter(for: \\AppState.todos, table: TodoTable.table),
                        database.sqlite.stateWriter(for: \\AppState.tags, table: TagTable.table),
                        // swidux:writers
            """))
        #expect(!store.contains("persisted-entities") && !store.contains(".entities("))
        // The generated test reopens the store through `live`, which both forms have.
        let test = try String(contentsOf: root.appendingPathComponent("Tests/NotesTests/TodoPersistenceTests.swift"), encoding: .utf8)
        #expect(test.contains("try await AppStore.live(database: database)") && !test.contains("AppStore.hydrate"))
    }

    @Test func anAppStoreWithNeitherFormIsRefusedNamingTheCurrentAnchor() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        let url = root.appendingPathComponent("Sources/Notes/App/AppStore.swift")
        let text = try String(contentsOf: url, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "// swidux:persisted-entities\n", with: "").utf8).write(to: url)
        expectRefusal(["add", "feature", "Todo", "--path", root.path], in: temp,
                      message: "'Sources/Notes/App/AppStore.swift' has no '// swidux:persisted-entities' line")

        // An old-form file that lost one of its two anchors: the lost one is named.
        try Data(Self.appStoreWithHydrateAndWriters.replacingOccurrences(of: "// swidux:writers\n", with: "").utf8).write(to: url)
        expectRefusal(["add", "feature", "Todo", "--path", root.path], in: temp,
                      message: "'Sources/Notes/App/AppStore.swift' has no '// swidux:writers' line")
    }

    @Test func reAddingAFeatureIsRefused() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        #expect(runSwidux(["add", "feature", "Todo", "--path", root.path]).code == 0)
        expectRefusal(["add", "feature", "Todo", "--path", root.path], in: temp,
                      message: "the feature 'Todo' already exists: .swidux.json lists 'Todo'")
        expectRefusal(["add", "feature", "TODO", "--path", root.path], in: temp, message: "already exists")
    }

    @Test func aFileInTheWayIsNeverOverwritten() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        try Data("struct Todo {}".utf8).write(to: root.appendingPathComponent("Sources/Notes/Models/Domain/Todo.swift"))
        expectRefusal(["add", "feature", "Todo", "--path", root.path], in: temp,
                      message: "'Sources/Notes/Models/Domain/Todo.swift' already exists")
    }

    @Test func aMissingAnchorChangesNothing() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        // The last file edited loses its anchor: every earlier edit must be held back too.
        let entry = root.appendingPathComponent("Sources/Notes/App/NotesApp.swift")
        let text = try String(contentsOf: entry, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "// swidux:summary\n", with: "").utf8).write(to: entry)
        expectRefusal(["add", "feature", "Todo", "--path", root.path], in: temp,
                      message: "'Sources/Notes/App/NotesApp.swift' has no '// swidux:summary' line")
    }

    @Test func aMissingFileChangesNothing() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        try FileManager.default.removeItem(at: root.appendingPathComponent("Sources/Notes/Services/AppDatabase.swift"))
        expectRefusal(["add", "feature", "Todo", "--path", root.path], in: temp,
                      message: "'Sources/Notes/Services/AppDatabase.swift' is missing")
    }

    @Test func aDirectoryThatIsNotAProjectIsRefused() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        expectRefusal(["add", "feature", "Todo", "--path", temp.url.path], in: temp,
                      message: "'\(temp.url.path)' is not a Swidux project: no .swidux.json")
        expectRefusal(["add", "feature", "Todo", "--path", temp.path("missing")], in: temp,
                      message: "the directory '\(temp.path("missing"))' does not exist")
    }

    @Test func aCorruptMarkerIsRefused() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        try Data("{ not json".utf8).write(to: root.appendingPathComponent(ProjectMarker.fileName))
        expectRefusal(["add", "feature", "Todo", "--path", root.path], in: temp,
                      message: "cannot read the project marker")
    }

    @Test func invalidOrCollidingFeatureNamesAreRefused() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        expectRefusal(["add", "feature", "todo", "--path", root.path], in: temp, message: "'todo' is not a valid name")
        expectRefusal(["add", "feature", "Default", "--path", root.path], in: temp, message: "derived name 'default' is a Swift keyword")
        expectRefusal(["add", "feature", "Notes", "--path", root.path], in: temp, message: "it is the project's (module's) name")
        expectRefusal(["add", "feature", "AppReducer", "--path", root.path], in: temp, message: "collides with a name")
        #expect(runSwidux(["add", "feature", "Todo", "--path", root.path]).code == 0)
        expectRefusal(["add", "feature", "TodoAction", "--path", root.path], in: temp, message: "collide with the feature 'Todo'")
    }

    @Test func anEditThatRacesTheCommandIsDetected() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        let path = "Sources/Notes/App/AppState.swift"
        let change = FileChange(path: path, contents: "new", kind: .modify(original: "what it was when rendered"))
        let before = snapshot(root)
        #expect(throws: SwiduxCLIError.concurrentModification(path)) {
            try FileTransaction.apply([FileChange(path: "Sources/Notes/New.swift", contents: "x"), change], under: root)
        }
        #expect(snapshot(root) == before)
    }

    @Test func aMoveThatFailsHalfwayIsUndone() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        // "Blocked" is a file, so creating "Blocked/New.swift" fails after the edit was applied.
        try Data("file".utf8).write(to: root.appendingPathComponent("Blocked"))
        let path = "Sources/Notes/App/AppState.swift"
        let original = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let before = snapshot(temp.url)
        #expect {
            try FileTransaction.apply([
                FileChange(path: path, contents: "edited", kind: .modify(original: original)),
                FileChange(path: "Sources/Notes/Created.swift", contents: "created"),
                FileChange(path: "Blocked/New.swift", contents: "never"),
            ], under: root)
        } throws: { error in
            guard case .cannotWrite(let failed, _)? = error as? SwiduxCLIError else { return false }
            return failed.hasSuffix("Blocked/New.swift")
        }
        #expect(snapshot(temp.url) == before)
    }
}
