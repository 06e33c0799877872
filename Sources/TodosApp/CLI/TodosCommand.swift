import ArgumentParser
import Foundation
import SwiduxSQLite

/// `--db <path>`: the database file (else `TODOS_DB`, else the per-user default).
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file (default: $TODOS_DB, else $XDG_DATA_HOME/todos/todos.sqlite, else ~/.local/share/todos/todos.sqlite).", valueName: "path"))
    var db: String?

    init() {}
}

/// `todos`: the terminal to-do app. No subcommand opens the full-screen UI.
public struct TodosCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "todos",
        abstract: "A terminal to-do app (Swidux example). With no subcommand, opens the full-screen UI.",
        discussion: """
            Several processes may use one database: two UIs, or a UI and scripted add/done/rm, \
            see each other's changes within a second. An edit of the UI not yet saved keeps \
            its value over another process's change (it is saved later and wins); text being \
            typed is never replaced; an item deleted elsewhere stays deleted.

            Sync across devices: run a swidux-sync-server, then pass --sync <url> and \
            --sync-token <token> (or set TODOS_SYNC_URL and TODOS_SYNC_TOKEN): the UI syncs \
            continuously and keeps working offline; `todos sync` syncs once. For an https:// \
            server whose certificate a private CA signed, pass --sync-ca-file <file> (PEM).
            """,
        subcommands: [Add.self, List.self, Done.self, Remove.self, Sync.self, Share.self, Unshare.self, Conflicts.self, Replay.self, Stress.self, Check.self, TimeKeys.self]
    )

    @OptionGroup var options: DatabaseOptions
    @OptionGroup var sync: SyncOptions
    @Option(name: .long, help: ArgumentHelp("Where the full-screen UI writes its log, never to the terminal (default: $TODOS_LOG, else $XDG_STATE_HOME/todos/todos.log, else ~/.local/state/todos/todos.log).", valueName: "path"))
    var log: String?
    @Option(name: .long, help: ArgumentHelp("Record the UI session to this file (JSON lines; replay it with `todos replay FILE`).", valueName: "file"))
    var record: String?

    public init() {}

    public func run() async throws {
        let path = DatabaseLocation.resolve(option: options.db)
        let sync = try sync.resolved()
        let trusted = try self.sync.trustedCertificates()
        // The UI owns the terminal: the library's log goes to a file from here on.
        let logProblem = LogFile.bootstrap(path: LogFile.resolve(option: log))
        let record = record.map { URL(fileURLWithPath: DatabaseLocation.expand($0)) }
        try await TerminalUI.run(databasePath: path, sync: sync, trusting: trusted, notice: logProblem, record: record)
    }
}

/// Opens the app on the database at `path` with `access`, runs `body`, then (unless
/// read-only) flushes, and closes. Every error becomes one sentence naming the path and the
/// cause, and a non-zero exit.
@MainActor
func withApp<T: Sendable>(
    path: String, access: SwiduxDatabase.Access, defaultList: Bool = false,
    prepare: (AppDatabase) throws -> Void = { _ in },
    _ body: @MainActor (TodoApp) async throws -> T
) async throws -> T {
    do {
        let database = try AppDatabase.open(path: path, access: access)
        defer { try? database.close() }
        try prepare(database)
        let app = try TodoApp(database: database, defaultList: defaultList)
        let result = try await body(app)
        if access != .readOnly { try await app.flush() }
        return result
    } catch {
        throw TodosError(ErrorMessage.describe(error, path: path))
    }
}

@MainActor
func openApp(path: String, record: URL? = nil) throws -> TodoApp {
    do {
        return try TodoApp(database: AppDatabase.open(path: path, access: .create), record: record)
    } catch let error as SessionRecordingError {
        throw TodosError(error.description)
    } catch {
        throw TodosError(ErrorMessage.describe(error, path: path))
    }
}

extension TodosCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an item; prints its id. Creates the database if there is none (and says where).")
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Argument(help: ArgumentHelp("The title (at most 500 characters; put -- before a title starting with '-').")) var title: String
        @Option(help: "The list (created if missing; default: the first list). At most 100 characters; compared ignoring case and surrounding spaces.") var list: String?
        @Option(help: "A tag (repeatable; at most 100 characters).") var tag: [String] = []

        func run() async throws {
            let title = Limits.clean(title)
            guard !title.isEmpty else { throw TodosError("the title is empty") }
            if let excess = Limits.excess(title, max: Limits.title, what: "a title") { throw TodosError(excess) }
            let tags = try tag.map { try TagsReducer.validate($0).get() }
            let listName = try list.map { try ListName.validate($0).get() }
            let path = databasePath
            var target: UUID?
            var created = false
            let id = try await withApp(path: path, access: .create, prepare: { database in
                created = database.created
                // Get-or-create by name, atomic across processes (unique name key).
                if let listName { target = try database.ensureList(named: listName).id } else { try database.ensureDefaultList() }
            }) { app in
                guard let listID = target ?? app.store.lists.first?.id else { throw TodosError("there are no lists") }
                if let reason = try app.database.readOnlyReason(list: listID) { throw TodosError(reason) }
                let id = app.environment.uuid()
                await app.send(.items(.add(id: id, listID: listID, title: title, tags: tags)))
                guard app.store.items[id] != nil else { throw TodosError("the item was not added") }
                return id
            }
            if created { TerminalIO.write("todos: created a new database at \(path)\n", to: STDERR_FILENO) }
            print(id.uuidString.lowercased())
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List items (reads only; the database must exist).")
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Option(help: "Only this list.") var list: String?
        @Flag(help: "Print a JSON array of {id, title, list, done, tags, createdAt}.") var json = false

        func run() async throws {
            let list = list
            let items = try await withApp(path: databasePath, access: .readOnly) { app in
                var listID: UUID?
                if let list { listID = try await app.list(named: list, create: false).id }
                return ItemJSON.items(in: app.store.state, listID: listID)
            }
            if json {
                print(try ItemJSON.encode(items))
            } else {
                // Control characters never reach the terminal raw.
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
            try await withApp(path: databasePath, access: .existing) { app in
                let item = try app.resolveItem(text)
                if let reason = try app.database.readOnlyReason(list: item.listID) { throw TodosError(reason) }
                await app.send(.items(.setDone(id: item.id, done: done)))
                try await app.flush()
                // Delete wins: an item another process deleted meanwhile is not brought back.
                if app.hasVanished(item.id) || app.store.items[item.id] == nil {
                    throw TodosError("no item with id \(text): it was deleted meanwhile")
                }
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
            try await withApp(path: databasePath, access: .existing) { app in
                let item = try app.resolveItem(text)
                if let reason = try app.database.readOnlyReason(list: item.listID) { throw TodosError(reason) }
                await app.send(.items(.delete(id: item.id)))
                try await app.flush()
                if app.hasVanished(item.id) { throw TodosError("no item with id \(text): it was deleted meanwhile") }
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
            var listID: UUID?
            try await withApp(path: databasePath, access: .create, prepare: { listID = try $0.ensureList(named: "stress").id }) { app in
                guard let list = listID.flatMap({ app.store.lists[$0] }) else { throw TodosError("the list “stress” is missing") }
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
                let database = try AppDatabase.open(path: path, access: .readOnly)
                problems = try database.integrityProblems()
                try database.close()
            } catch {
                throw TodosError(ErrorMessage.describe(error, path: path))
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
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
            if let hint = dashHint(arguments) {
                TerminalIO.write(fullMessage(for: error) + "\n" + hint + "\n", to: STDERR_FILENO)
                Foundation.exit(exitCode(for: error).rawValue)
            }
            exit(withError: error)
        }
        do {
            var command = command
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// For `todos add "-x"`: an argument that looks like an option but is none of ours is
    /// probably a title (or list or tag) starting with '-': say how to pass it.
    static func dashHint(_ arguments: [String]) -> String? {
        let known: Set<String> = ["--db", "--list", "--tag", "--json", "--undo", "--help", "-h", "--count", "--interval-ms", "--version", "--sync", "--sync-token", "--sync-ca-file", "--record", "--log", "--step", "--summary"]
        guard !arguments.contains("--"),
              let odd = arguments.first(where: { $0.hasPrefix("-") && $0.count > 1 && !known.contains($0.split(separator: "=").first.map(String.init) ?? $0) })
        else { return nil }
        let quoted = "'" + odd.replacingOccurrences(of: "'", with: "'\\''") + "'"
        if let subcommand = arguments.first, ["add", "done", "rm"].contains(subcommand) {
            return "Hint: to pass \(quoted) as an argument rather than an option, put -- before it: todos \(subcommand) -- \(quoted)"
        }
        return "Hint: to pass \(quoted) as an argument rather than an option, put -- before it."
    }
}