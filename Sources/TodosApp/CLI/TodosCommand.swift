import ArgumentParser
import Foundation
import SwiduxSQLite

/// `--db <path>`: the database file (else `TODOS_DB`, else the per-user default).
public struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file (default: $TODOS_DB, else $XDG_DATA_HOME/todos/todos.sqlite, else ~/.local/share/todos/todos.sqlite).", valueName: "path"))
    public var db: String?

    public init() {}
}

/// `todos`: the terminal to-do app. No subcommand opens the full-screen UI.
public struct TodosCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "todos",
        abstract: "A terminal to-do app (Swidux example). With no subcommand, opens the full-screen UI.",
        subcommands: [Add.self, List.self, Done.self, Remove.self, Stress.self, Check.self]
    )

    @OptionGroup public var options: DatabaseOptions

    public init() {}

    public func run() async throws {
        let path = DatabaseLocation.resolve(option: options.db)
        try await TerminalUI.run(databasePath: path)
    }
}

/// Opens the app on the database at `path`, runs `body`,
/// then flushes and closes. Database errors become a clear message and a non-zero exit.
@MainActor
func withApp<T: Sendable>(path: String, _ body: @MainActor (TodoApp) async throws -> T) async throws -> T {
    let app = try openApp(path: path)
    let result = try await body(app)
    try await app.flush()
    try? app.database.close()
    return result
}

@MainActor
func openApp(path: String) throws -> TodoApp {
    do {
        return try TodoApp(database: AppDatabase.open(path: path))
    } catch let error as SwiduxDatabaseError {
        throw TodosError(error.description)
    } catch let error as TodosError {
        throw error
    } catch {
        throw TodosError("Cannot use the database at \(path): \(error)")
    }
}

extension TodosCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an item; prints its id.")
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Argument(help: "The title.") var title: String
        @Option(help: "The list (created if missing; default: the first list).") var list: String?
        @Option(help: "A tag (repeatable).") var tag: [String] = []

        func run() async throws {
            let (title, list, tags) = (title, list, tag)
            let id = try await withApp(path: databasePath) { app in
                guard !Limits.clean(title, max: Limits.title).isEmpty else { throw TodosError("the title is empty") }
                let target = try await app.list(named: list, create: true)
                let id = app.environment.uuid()
                await app.send(.items(.add(id: id, listID: target.id, title: title, tags: tags)))
                guard app.store.items[id] != nil else { throw TodosError("the item was not added") }
                return id
            }
            print(id.uuidString.lowercased())
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List items.")
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Option(help: "Only this list.") var list: String?
        @Flag(help: "Print a JSON array of {id, title, list, done, tags, createdAt}.") var json = false

        func run() async throws {
            let list = list
            let items = try await withApp(path: databasePath) { app in
                var listID: UUID?
                if let list { listID = try await app.list(named: list, create: false).id }
                return ItemJSON.items(in: app.store.state, listID: listID)
            }
            if json {
                print(try ItemJSON.encode(items))
            } else {
                for item in items { print(ItemJSON.line(item)) }
            }
        }
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark an item done.")
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Argument(help: "The item's id (or a unique prefix of at least 4 hex digits).") var id: String
        @Flag(help: "Mark it not done instead.") var undo = false

        func run() async throws {
            let (text, done) = (id, !undo)
            try await withApp(path: databasePath) { app in
                let item = try app.resolveItem(text)
                await app.send(.items(.setDone(id: item.id, done: done)))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete an item.")
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Argument(help: "The item's id (or a unique prefix of at least 4 hex digits).") var id: String

        func run() async throws {
            let text = id
            try await withApp(path: databasePath) { app in
                let item = try app.resolveItem(text)
                await app.send(.items(.delete(id: item.id)))
            }
        }
    }

    /// Rapid edits through the store, for crash tests: adds items "stress 0", "stress 1", …
    /// to the list "stress", marking the previous one done. Prints "flushed" once the first
    /// items are durable, then keeps editing without explicit flushes.
    struct Stress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rapid edits (crash tests).", shouldDisplay: false)
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Option var count = 1000
        @Option(help: "Pause between edits, in milliseconds.") var intervalMs = 1

        func run() async throws {
            let (count, interval) = (count, intervalMs)
            try await withApp(path: databasePath) { app in
                let list = try await app.list(named: "stress", create: true)
                var previous: UUID?
                for index in 0..<count {
                    let id = app.environment.uuid()
                    app.store.send(.items(.add(id: id, listID: list.id, title: "stress \(index)")))
                    if let previous { app.store.send(.items(.setDone(id: previous, done: true))) }
                    previous = id
                    if index == 9 {
                        try await app.flush()
                        TerminalIO.write("flushed \(index + 1)\n")
                    }
                    try await Task.sleep(for: .milliseconds(interval))
                }
            }
            TerminalIO.write("done \(count)\n")
        }
    }

    /// Checks the database file: SQLite integrity and foreign keys. Prints "ok".
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check the database file.", shouldDisplay: false)
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }

        func run() async throws {
            let path = DatabaseLocation.resolve(option: options.db ?? parent.options.db)
            let problems: [String]
            do {
                let database = try AppDatabase.open(path: path)
                problems = try database.integrityProblems()
                try database.close()
            } catch let error as SwiduxDatabaseError {
                throw TodosError(error.description)
            }
            guard problems.isEmpty else { throw TodosError(problems.joined(separator: "\n")) }
            print("ok")
        }
    }
}

extension TodosCommand {
    /// The executable's entry point: parses the arguments and runs the chosen command.
    /// Errors print to standard error and exit non-zero.
    public static func runMain(_ arguments: [String]? = nil) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
