import Dispatch
import Foundation
import SwiduxSync

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The full-screen terminal UI: raw mode and alternate screen, input bytes → key events →
/// commands → actions, a redraw from state after every event, status messages from the
/// app's event channel. Quitting (q, Ctrl-C, SIGINT, SIGTERM, SIGHUP, end of input)
/// flushes persistence and restores the terminal.
@MainActor
final class TerminalUI {
    enum Input: Sendable {
        /// Bytes read from the terminal, with the time they arrived (pasted text is told
        /// from typing by it, see ``TypingBurst``).
        case bytes([UInt8], at: ContinuousClock.Instant)
        case endOfInput
        case event(AppEvent)
        case tick
        case signal(Int32)
        case sync(SyncMark.Change)
    }

    let app: TodoApp
    private var screen = ScreenBuffer()
    private var decoder = KeyDecoder()
    private var burst = TypingBurst()
    /// What the last burst's notice said (so that it is said once, then updated).
    private var burstNotice = (added: 0, leftOut: false)
    /// The lasting sync state on the status line while sync is on.
    private var syncMark = SyncMark()
    private var status: (text: String, until: ContinuousClock.Instant)?
    private var lastSize = TerminalIO.Size(columns: 80, rows: 24)
    static let statusDuration: Duration = .seconds(4)
    private var syncClient: SyncSpaces?
    /// The lists shared with other users (``AppDatabase/sharedLists()``), read again after
    /// every sync event.
    private var readOnly = ReadOnlyLists()

    init(app: TodoApp) { self.app = app }

    /// Opens the database at `path` and runs the UI until the user quits; with `sync`,
    /// syncs continuously with that server (failures are status messages; the UI keeps
    /// working offline and sync retries), trusting `trusted` besides the system's CAs.
    /// `notice` is shown on the status line first (e.g. the log file could not be opened).
    static func run(
        databasePath path: String, sync: (url: URL, token: String)? = nil, trusting trusted: SyncTrustedCertificates? = nil,
        notice: String? = nil, record: URL? = nil
    ) async throws {
        guard TerminalIO.isTerminal(STDIN_FILENO), TerminalIO.isTerminal(STDOUT_FILENO) else {
            throw TodosError("the interactive UI needs a terminal; use a subcommand instead (see `todos --help`)")
        }
        let app = try openApp(path: path, record: record)
        try app.followDatabase()   // other processes' changes appear at the next redraw
        let ui = TerminalUI(app: app)
        if let sync {
            do {
                ui.syncClient = try app.database.syncSpaces(url: sync.url, token: sync.token, trusted: trusted)
            } catch {
                throw TodosError("cannot set up sync: \(error)")
            }
        }
        if app.database.created { ui.status = ("Created a new database at \(path)", .now + statusDuration * 2) }
        if let notice { ui.status = ("⚠ " + notice, .now + statusDuration * 2) }
        try await ui.run()
    }

    func run() async throws {
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)

        // Signals become inputs, handled on the main actor like key presses.
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] {
            TerminalIO.ignore(sig)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            // Not main-actor isolated: the handler runs on a global queue.
            source.setEventHandler { @Sendable in continuation.yield(.signal(sig)) }
            source.resume()
            sources.append(source)
        }
        TerminalIO.installEmergencyRestore()
        guard TerminalIO.enableRawMode() else { throw TodosError("cannot switch the terminal to raw mode") }
        TerminalIO.enterFullScreen()

        let reader = Thread {
            while let bytes = TerminalIO.read() { continuation.yield(.bytes(bytes, at: .now)) }
            continuation.yield(.endOfInput)
        }
        reader.start()
        let events = app.events.events
        let eventTask = Task {
            for await event in events { continuation.yield(.event(event)) }
        }
        var syncTask: Task<Void, Never>?
        readOnly.shared = (try? app.database.sharedLists()) ?? [:]
        if let syncClient {
            await syncClient.start()
            syncMark.state = .connecting
            let syncEvents = syncClient.events
            syncTask = Task {
                for await event in syncEvents {
                    // How many changes wait is read after every event, so the mark is current.
                    let waiting = try? await syncClient.pendingChanges()
                    continuation.yield(.sync(SyncMark.Change(event: event, waiting: waiting)))
                    // Another device's later edit replaced one of this device's values, or the server refused an edit.
                    if case .synced(let report) = event, let first = report.conflicts.first {
                        let count = report.conflicts.count
                        let what = report.conflicts.allSatisfy { $0.kind == .refused } ? "refused" : "conflict\(count == 1 ? "" : "s")"
                        continuation.yield(.event(.status("sync: \(count) \(what): \(TodosCommand.Conflicts.line(first)) — `todos conflicts` lists them")))
                    }
                }
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                continuation.yield(.tick)
            }
        }

        // The screen renders from the store: whatever changes what it shows
        // — a key, an effect, another process's commit, sync — redraws it.
        let rendering = app.store.observe { [weak self] _ in self?.redraw() }
        loop: for await input in inputs {
            switch input {
            case .bytes(let bytes, let time):
                var keepGoing = true
                for key in decoder.feed(bytes) {
                    let commands = burst.commands(for: key, at: time, state: app.store.state, makeID: app.environment.uuid)
                    for command in commands {
                        if command == .syncNow { await syncNow(); continue }
                        if case .send(let action) = command, let list = readOnly.list(changedBy: action, in: app.store.state) {
                            let name = app.store.lists[list]?.name ?? "This list"
                            status = ("⚠ “\(name)” is read-only: it is shared with you read-only, or no longer shared", .now + Self.statusDuration)
                            continue
                        }
                        if await !app.performOnLatest(command) { keepGoing = false; break }
                    }
                    if !keepGoing { break }
                }
                if !keepGoing { break loop }
                sayBurst()
            case .endOfInput:
                break loop
            case .event(.status(let text)):
                status = (text, .now + Self.statusDuration)
            case .event(.error(let text)):
                status = ("⚠ " + text, .now + Self.statusDuration)
            case .tick:
                // State changes redraw through the observation above; a tick only clears
                // an expired status line.
                guard let current = status, current.until <= .now else { continue }
                status = nil
            case .sync(let change):
                if let text = syncMark.apply(change) { status = (text, .now + Self.statusDuration) }
                // A list shared with this user, or its role changed, arrives with a sync.
                if change.event != nil, let shared = try? app.database.sharedLists() { readOnly.shared = shared }
                // While changes wait offline, their count follows the local edits.
                if syncMark.isOffline, let syncClient { watchWaiting(syncClient, continuation) }
            case .signal(SIGWINCH):
                break
            case .signal:
                break loop
            }
            redraw()
        }

        rendering.cancel()   // nothing is drawn once the UI is left
        ticker.cancel()
        eventTask.cancel()
        syncTask?.cancel()
        waitingWatch?.cancel()
        await syncClient?.stop()
        for source in sources { source.cancel() }
        var flushError: (any Error)?
        do { try await app.flush() } catch { flushError = error }
        var recordError: (any Error)?
        do { try await app.recorder?.flush() } catch { recordError = error }
        Self.dumpStateIfAsked(app.store.state)
        try? app.database.close()
        TerminalIO.leaveFullScreen()
        TerminalIO.restoreMode()
        if let flushError { throw TodosError("saving failed: \(flushError)") }
        if let recordError { throw TodosError("recording failed: \(recordError)") }
    }

    /// A test hook: with `TODOS_STATE_DUMP=<path>`, the items the UI holds when it quits
    /// (after its last flush) are written there as `todos list --json` prints them, so that
    /// a test can compare what a UI showed with what the file holds.
    private static func dumpStateIfAsked(_ state: AppState) {
        guard let path = ProcessInfo.processInfo.environment["TODOS_STATE_DUMP"], !path.isEmpty,
              let json = try? ItemJSON.encode(ItemJSON.items(in: state, listID: nil)) else { return }
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
    }

    /// After a burst of typed-fast keys: how many items its lines added, and whether some
    /// of it was left out — said once per burst, updated as it goes on.
    private func sayBurst() {
        let now = (added: burst.addedLines, leftOut: burst.leftOut)
        defer { burstNotice = now }
        if now.added >= 2, now.added != burstNotice.added {
            app.perform(.send(.ui(.notice("Added \(now.added) items from the pasted lines"))))
        }
        if now.leftOut, !burstNotice.leftOut {
            app.perform(.send(.ui(.notice("Pasted text after a line break was left out: only the add field takes several lines"))))
        }
    }

    /// Retries sync at once (the `s` key), also after a refused token.
    private func syncNow() async {
        guard let syncClient else {
            status = ("Sync is off: start todos with --sync <url> --sync-token <token>", .now + Self.statusDuration)
            return
        }
        await syncClient.retryNow()
        status = ("Retrying sync now", .now + Self.statusDuration)
    }

    /// One count of waiting changes a second while offline, so that the mark follows edits.
    private var waitingWatch: Task<Void, Never>?
    private func watchWaiting(_ client: SyncSpaces, _ continuation: AsyncStream<Input>.Continuation) {
        guard waitingWatch == nil else { return }
        waitingWatch = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let waiting = try? await client.pendingChanges() else { continue }
                continuation.yield(.sync(SyncMark.Change(event: nil, waiting: waiting)))
                guard let self, self.syncMark.isOffline else { break }
            }
            self?.waitingWatch = nil
        }
    }

    private func redraw() {
        let size = TerminalIO.size() ?? lastSize
        lastSize = size
        let lines = Render.screen(app.store.state, size: size, status: status?.text, mark: syncMark.text, shared: readOnly.shared).enumerated().map { row, line in
            row == 0 || line.hasPrefix(" ▸ ") ? "\u{1B}[7m" + line + "\u{1B}[0m" : line
        }
        TerminalIO.write(screen.update(to: lines, size: size))
    }
}
