/// The files and edits of `swidux add feature <Name>`: the seed's "New Feature Checklist".
///
/// Naming: every name derives from the feature's singular, capitalized name. For `Todo`:
/// value type `Todo`, table `TodoTable`, action `TodoAction` (case `todo` of `AppAction`),
/// reducer `TodoReducer`, view `TodoListView`, `EntityStore<Todo>` property `todos`.
enum FeatureTemplates {
    /// A new file of the feature and its path relative to the project root.
    struct NewFile {
        var path: String
        var contents: String
    }

    /// An insertion into an existing file of the project.
    struct Insertion {
        var path: String
        var anchor: Anchor
        var snippet: String
    }

    /// Steps 1, 2, 6 (with the action enum of step 5), 9 and 10 of the checklist.
    static func newFiles(project n: String, feature f: SwiftName) -> [NewFile] {
        let t = f.typeName
        return [
            NewFile(path: "Sources/\(n)/Models/Domain/\(t).swift", contents: domainType(f)),
            NewFile(path: "Sources/\(n)/Models/Persistence/\(t)Table.swift", contents: table(f)),
            NewFile(path: "Sources/\(n)/Features/\(t)/\(t)Action.swift", contents: action(f)),
            NewFile(path: "Sources/\(n)/Features/\(t)/\(t)Reducer.swift", contents: reducer(f)),
            NewFile(path: "Sources/\(n)/Features/\(t)/\(t)ListView.swift", contents: view(f)),
            NewFile(path: "Tests/\(n)Tests/\(t)ReducerTests.swift", contents: reducerTests(project: n, feature: f)),
            NewFile(path: "Tests/\(n)Tests/\(t)PersistenceTests.swift", contents: persistenceTests(project: n, feature: f)),
        ]
    }

    /// The project-relative path of `AppStore.swift`, whose ``PersistenceLayout`` decides
    /// step 8's insertions.
    static func appStorePath(project n: String) -> String {
        "Sources/\(n)/App/AppStore.swift"
    }

    /// Steps 4, 5, 7 and 8 (and the migration, navigation link and summary line), step 8 in
    /// the form of `layout`: one `.entities(…)` line, or (in a project generated before
    /// that form) a hydration line and a `StateWriter`.
    static func insertions(project n: String, feature f: SwiftName, layout: PersistenceLayout = .persistedEntities) -> [Insertion] {
        let t = f.typeName, c = f.caseName, p = f.propertyName
        let app = "Sources/\(n)/App"
        let persistence: [Insertion] = switch layout {
        case .persistedEntities: [
            Insertion(path: appStorePath(project: n), anchor: .persistedEntities, snippet: """
                .entities(\\.\(p), in: \(t)Table.table),
                """),
        ]
        case .hydrateAndWriters: [
            Insertion(path: appStorePath(project: n), anchor: .hydrate, snippet: """
                state.\(p) = try await database.sqlite.hydrate(\(t)Table.table)
                """),
            Insertion(path: appStorePath(project: n), anchor: .writers, snippet: """
                database.sqlite.stateWriter(for: \\AppState.\(p), table: \(t)Table.table),
                """),
        ]
        }
        return [
            Insertion(path: "\(app)/AppState.swift", anchor: .featureStates, snippet: """
                /// Every \(t), persisted in `\(t)Table`.
                var \(p) = EntityStore<\(t)>()
                """),
            Insertion(path: "\(app)/AppAction.swift", anchor: .featureActions, snippet: """
                /// The \(t) feature's actions.
                case \(c)(\(t)Action)
                """),
            Insertion(path: "\(app)/AppReducer.swift", anchor: .featureReducers, snippet: """
                case .\(c)(let action):
                    return \(t)Reducer().reduce(state: &state, action: action, environment: environment)
                """),
        ] + persistence + [
            Insertion(path: "Sources/\(n)/Services/AppDatabase.swift", anchor: .migrations, snippet: """
                migrations.register("create \(p)") { db in try db.createEntityTable(\(t)Table.table) }
                """),
            Insertion(path: "Sources/\(n)/Features/RootView.swift", anchor: .featureViews, snippet: """
                NavigationLink("\(t)") { \(t)ListView(store: store) }
                """),
            Insertion(path: "\(app)/\(n)App.swift", anchor: .summary, snippet: """
                ("\(p)", state.\(p).count),
                """),
        ]
    }

    static func domainType(_ f: SwiftName) -> String {
        let t = f.typeName
        return #"""
        import Foundation

        /// A \#(t). A value type: the state holds it in an `EntityStore`, the database in `\#(t)Table`.
        ///
        /// Add fields freely: stored as JSON, a new optional field (or one with a default in
        /// a custom `init(from:)`) needs no migration.
        struct \#(t): Identifiable, Equatable, Sendable, Codable {
            var id: UUID
            var title: String
            var createdAt: Date
        }

        """#
    }

    static func table(_ f: SwiftName) -> String {
        let t = f.typeName, p = f.propertyName
        return #"""
        import SwiduxSQLite

        /// Where `\#(t)` values are stored: the `\#(p)` table (id, position, JSON data).
        /// Created by the "create \#(p)" migration in `AppDatabase`.
        ///
        /// For real columns (indexes, foreign keys), make `\#(t)` a GRDB record and use
        /// `EntityTable(recordsOf:)` with a migration that declares the columns.
        enum \#(t)Table {
            /// The table, listed in `AppStore.persistedEntities` (hydration and writer).
            static let table = EntityTable<\#(t)>(named: "\#(p)")
        }

        """#
    }

    static func action(_ f: SwiftName) -> String {
        let t = f.typeName
        return #"""
        import Foundation

        /// What can happen to \#(t) values. Wrapped in `AppAction.\#(f.caseName)`.
        enum \#(t)Action: Equatable, Sendable {
            /// Adds a new \#(t) with `title` (id and date from the environment).
            case create(title: String)
            /// Changes the title of the \#(t) with `id`.
            case setTitle(id: UUID, title: String)
            /// Deletes the \#(t) with `id`.
            case delete(id: UUID)
        }

        """#
    }

    static func reducer(_ f: SwiftName) -> String {
        let t = f.typeName, p = f.propertyName
        return #"""
        /// Applies `\#(t)Action`s to `AppState.\#(p)`. Persistence is automatic: the reducer
        /// only changes state.
        struct \#(t)Reducer: SwiduxReducer {
            func reduce(state: inout AppState, action: \#(t)Action, environment: AppEnvironment) -> Effect? {
                switch action {
                case .create(let title):
                    let value = \#(t)(id: environment.makeID(), title: title, createdAt: environment.now())
                    state.\#(p)[value.id] = value
                case .setTitle(let id, let title):
                    state.\#(p).modify(id) { $0.title = title }
                case .delete(let id):
                    state.\#(p)[id] = nil
                }
                return nil
            }
        }

        """#
    }

    static func view(_ f: SwiftName) -> String {
        let t = f.typeName, c = f.caseName, p = f.propertyName
        return #"""
        #if canImport(SwiftUI)
        import SwiftUI

        /// The list of \#(t) values: reads `store.\#(p)`, edits through actions only
        /// (controlled text fields, no local copies).
        struct \#(t)ListView: View {
            let store: AppStore

            var body: some View {
                List {
                    ForEach(store.\#(p).values) { value in
                        TextField("Title", text: Binding(
                            get: { store.\#(p)[value.id]?.title ?? "" },
                            set: { store.send(.\#(c)(.setTitle(id: value.id, title: $0))) }
                        ))
                    }
                    .onDelete { offsets in
                        let ids = offsets.map { store.\#(p).values[$0].id }
                        for id in ids { store.send(.\#(c)(.delete(id: id))) }
                    }
                }
                .navigationTitle("\#(t)")
                .toolbar {
                    Button("Add") { store.send(.\#(c)(.create(title: "New \#(t)"))) }
                }
            }
        }
        #endif

        """#
    }

    static func reducerTests(project n: String, feature f: SwiftName) -> String {
        let t = f.typeName, c = f.caseName, p = f.propertyName
        return #"""
        import Foundation
        import Testing
        @testable import \#(n)

        @Suite("\#(t)Reducer")
        struct \#(t)ReducerTests {
            let reducer = AppReducer()
            let id = UUID()
            let date = Date(timeIntervalSince1970: 1_000_000)
            var environment: AppEnvironment {
                AppEnvironment(now: { [date] in date }, makeID: { [id] in id })
            }

            @Test func createAddsAValueWithTheEnvironmentsIDAndDate() {
                var state = AppState()
                let effect = reducer.reduce(state: &state, action: .\#(c)(.create(title: "First")), environment: environment)
                #expect(effect == nil)
                #expect(state.\#(p).values == [\#(t)(id: id, title: "First", createdAt: date)])
            }

            @Test func setTitleChangesOnlyThatValue() {
                var state = AppState()
                let other = \#(t)(id: UUID(), title: "Other", createdAt: date)
                state.\#(p)[other.id] = other
                _ = reducer.reduce(state: &state, action: .\#(c)(.create(title: "First")), environment: environment)
                _ = reducer.reduce(state: &state, action: .\#(c)(.setTitle(id: id, title: "Renamed")), environment: environment)
                #expect(state.\#(p)[id]?.title == "Renamed")
                #expect(state.\#(p)[other.id] == other)
            }

            @Test func deleteRemovesTheValue() {
                var state = AppState()
                _ = reducer.reduce(state: &state, action: .\#(c)(.create(title: "First")), environment: environment)
                _ = reducer.reduce(state: &state, action: .\#(c)(.delete(id: id)), environment: environment)
                #expect(state.\#(p).isEmpty)
            }
        }

        """#
    }

    static func persistenceTests(project n: String, feature f: SwiftName) -> String {
        let t = f.typeName, c = f.caseName, p = f.propertyName
        return #"""
        import Foundation
        import Testing
        @testable import \#(n)

        @Suite("\#(t) persistence")
        @MainActor
        struct \#(t)PersistenceTests {
            @Test func changesAreWrittenAndLoadedBack() async throws {
                let database = try AppDatabase.inMemory()
                let store = try await AppStore.live(database: database)
                store.send(.\#(c)(.create(title: "Kept")))
                store.send(.\#(c)(.create(title: "Deleted")))
                let deleted = try #require(store.\#(p).values.last).id
                store.send(.\#(c)(.delete(id: deleted)))
                try await store.flush()

                let reopened = try await AppStore.live(database: database)
                #expect(reopened.\#(p).values.map(\.title) == ["Kept"])
                #expect(reopened.\#(p).values == store.\#(p).values)
            }
        }

        """#
    }
}
