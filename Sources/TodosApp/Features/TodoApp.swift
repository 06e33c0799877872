import Foundation
import GRDB
import Logging
import SwiduxSQLite

/// The running application: the store wired to the database (persistence), undo and the
/// event channel. The terminal UI and every CLI command go through it.
@MainActor
final class TodoApp {
    let store: Store<AppState, AppAction>
    let events: EventChannel<AppEvent>
    let database: AppDatabase
    let environment: AppEnvironment
    /// Records the session when the app was opened with `record:` (`todos --record FILE`).
    let recorder: SessionRecorder<AppState, AppAction>?

    /// The name of the list created when there is none.
    nonisolated static let defaultListName = "Inbox"

    /// Hydrates the state from `database` and builds the store.
    ///
    /// - Parameter defaultList: create the list ``defaultListName`` in the database when
    ///   there is no list (atomically across processes); `false` for commands that must
    ///   not write (and always for a read-only database).
    init(
        database: AppDatabase,
        defaultList: Bool = true,
        clock: any Clock<Duration> = ContinuousClock(),
        persistenceDebounce: Duration = .milliseconds(250),
        searchDebounce: Duration = .milliseconds(200),
        uuid: @escaping @Sendable () -> UUID = { UUID() },
        now: @escaping @Sendable () -> Date = { Date() },
        record: URL? = nil
    ) throws {
        let events = EventChannel<AppEvent>()
        // Recording: the reducer's time and ids come from the recording's values, so that a
        // replay reproduces them; the recorder's header holds the state it starts from.
        var (uuid, now) = (uuid, now)
        var recorder: SessionRecorder<AppState, AppAction>?
        if let record {
            let values = SessionValues()
            (uuid, now) = (values.uuid, values.now)
            recorder = try SessionRecorder(file: record, values: values, snapshot: true)
        }
        self.recorder = recorder
        if defaultList, database.access != .readOnly { try database.ensureDefaultList() }
        var state = try database.hydrate()
        state.ui.currentListID = state.lists.first?.id
        let environment = AppEnvironment(clock: clock, searchDebounce: searchDebounce, uuid: uuid, now: now, events: events)
        let persistence = database.persistence(debounce: persistenceDebounce, clock: clock)
        let path = database.database.path ?? "in memory"
        persistence.onError = { failure in
            events.emit(.error("Saving failed: " + ErrorMessage.describe(failure.underlying, path: path)))
        }
        let log = VanishedLog()
        persistence.onVanished = { report in
            log.ids.formUnion(report.ids.map { AnyHashable($0) })
            if report.reason == .orphaned {
                // A tag of an item, or an item of a list, that another process deleted meanwhile.
                let count = report.ids.count
                events.emit(.status("\(count) change\(count == 1 ? " was" : "s were") not saved: what \(count == 1 ? "it belongs" : "they belong") to was deleted by another process"))
            } else if report.writer.contains("items") {
                let count = report.ids.count
                events.emit(.status("\(count) item\(count == 1 ? " was" : "s were") deleted by another process"))
            }
        }
        self.vanishedLog = log
        self.events = events
        self.database = database
        self.environment = environment
        self.store = Store(
            initialState: state,
            reducer: AppReducer(),
            environment: environment,
            middleware: recorder.map { [$0] } ?? [],
            persistence: persistence,
            undo: Self.makeUndo(),
            logger: Logger(label: "todos.store")
        )
    }

    private let vanishedLog: VanishedLog

    /// The app's undo: the domain only. `ui` (list, filter, selection, input) is never
    /// undone, so undo never moves the user's navigation. Replays use it too.
    static func makeUndo() -> UndoMiddleware<AppState> {
        UndoMiddleware(maxDepth: 200, recording: \.lists, \.tags, \.items, \.itemTags)
    }

    /// Whether a flush found `id` deleted by another writer.
    func hasVanished(_ id: UUID) -> Bool { vanishedLog.ids.contains(AnyHashable(id)) }

    /// Sends `action` and waits for its effects.
    func send(_ action: AppAction) async {
        await store.send(action).finish()
    }

    /// Writes every pending change; returns when it is durable.
    func flush() async throws {
        try await store.flush()
    }

    /// Performs a key-map command. Returns `false` for ``Command/quit``.
    @discardableResult
    func perform(_ command: Command) -> Bool {
        switch command {
        case .send(let action):
            store.send(action)
        case .undo:
            if store.canUndo { store.undo(); events.emit(.status("Undone")) }
            else { events.emit(.status("Nothing to undo")) }
        case .redo:
            if store.canRedo { store.redo(); events.emit(.status("Redone")) }
            else { events.emit(.status("Nothing to redo")) }
        case .quit:
            return false
        case .syncNow:
            break   // the terminal UI's sync client acts on it
        }
        return true
    }

    /// Performs `command` (``perform(_:)``) on the latest version of the items it changes:
    /// pending changes are flushed first, then those items are read back from the database,
    /// so that an edit in a UI that was open while another process changed an item does not
    /// overwrite that change with a stale copy. An item deleted meanwhile is left to the
    /// flush after the command (delete wins: it is not re-inserted; the store learns it).
    ///
    /// This covers the items a command touches, when it touches them; seeing every external
    /// change as it happens is the external-changes issue.
    @discardableResult
    func performOnLatest(_ command: Command) async -> Bool {
        let ids = Self.itemsChanged(by: command)
        if !ids.isEmpty, database.access != .readOnly, database.database.path != nil {
            await refresh(items: ids)
        }
        return perform(command)
    }

    /// The items whose rows `command` writes.
    static func itemsChanged(by command: Command) -> [UUID] {
        guard case .send(let action) = command else { return [] }
        switch action {
        case .items(.toggle(let id)), .items(.setDone(let id, _)), .items(.setTitle(let id, _)),
             .items(.move(let id, _)):
            return [id]
        case .tags(.add(let id, _, _)), .tags(.remove(let id, _)), .tags(.clear(let id)):
            return [id]
        default:
            return []
        }
    }

    private func refresh(items ids: [UUID]) async {
        // A local change that cannot be written yet stays local (it wins when written).
        guard (try? await flush()) != nil else { return }
        let fresh: [TodoItem]
        do {
            fresh = try await database.database.writer.read { db in
                try ids.compactMap { try TodoItem.fetchOne(db, key: $0) }
            }
        } catch {
            return
        }
        for item in fresh where store.items[item.id] != item { store.send(.items(.refreshed(item))) }
    }

    /// The list named `name`, created if there is none. `nil` means the first list.
    func list(named name: String?, create: Bool) async throws -> TodoList {
        let state = store.state
        guard let name else {
            guard let first = state.lists.first else { throw TodosError("there are no lists") }
            return first
        }
        let valid = try ListName.validate(name).get()
        if let list = state.list(named: valid) { return list }
        guard create else { throw TodosError("no list named “\(valid)”") }
        let id = environment.uuid()
        await send(.lists(.add(id: id, name: name)))
        guard let list = store.lists[id] else { throw TodosError("invalid list name “\(name)”") }
        return list
    }

    /// The item whose id is `text` or starts with `text` (at least 4 hex digits, dashes optional).
    func resolveItem(_ text: String) throws -> TodoItem {
        let items = store.items
        if let uuid = UUID(uuidString: text) {
            guard let item = items[uuid] else { throw TodosError("no item with id \(text)") }
            return item
        }
        let needle = text.lowercased().replacingOccurrences(of: "-", with: "")
        guard needle.count >= 4, needle.allSatisfy(\.isHexDigit) else {
            throw TodosError("“\(text)” is not an item id (give at least 4 hex digits of the id)")
        }
        let matches = items.filter { $0.id.uuidString.lowercased().replacingOccurrences(of: "-", with: "").hasPrefix(needle) }
        switch matches.count {
        case 0: throw TodosError("no item with id \(text)")
        case 1: return matches[0]
        default: throw TodosError("id \(text) is ambiguous: it matches \(matches.count) items")
        }
    }
}

/// Ids of entities a flush found deleted by another writer (delete wins over a stale
/// update): the store removed them from the state without writing them back.
@MainActor
final class VanishedLog {
    var ids: Set<AnyHashable> = []
}

/// A user-facing error: the message goes to standard error, the exit status is non-zero.
struct TodosError: Error, CustomStringConvertible, Equatable {
    let description: String
    init(_ description: String) { self.description = description }
}
