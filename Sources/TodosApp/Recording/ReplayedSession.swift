import CustomDump
import Foundation

/// A recorded session of the app (`todos --record FILE`) replayed: the app's reducer runs
/// every recorded step (effects not run: their actions are in the recording), and each
/// step's state fingerprint is compared with the recording's.
///
/// ```swift
/// let session = try ReplayedSession(file: URL(fileURLWithPath: "session.jsonl"))
/// for step in session.steps { print(ReplayedSession.lines(for: step).joined(separator: "\n")) }
/// ```
@MainActor
final class ReplayedSession {
    /// The recording.
    let recording: SessionRecording<AppAction>
    /// The steps replayed, up to and including the first that differs from the recording.
    private(set) var steps: [ReplayedStep<AppState, AppAction>] = []
    /// The state the replay started from (the recording's snapshot).
    let initialState: AppState
    /// Parts that differ before the first step (the recording has no snapshot and started
    /// from another state than an empty one).
    let initialDifferences: [String]

    /// Reads and replays `file`.
    ///
    /// - Throws: a ``SessionRecordingError`` naming the file and line when it does not read.
    init(file: URL) throws {
        let recording = try SessionRecording<AppAction>(contentsOf: file)
        let values = SessionValues()
        let store = Store(
            initialState: AppState(), reducer: AppReducer().ignoringEffects(),
            environment: AppEnvironment(uuid: values.uuid, now: values.now),
            undo: TodoApp.makeUndo())
        let replayer: SessionReplayer<AppState, AppAction>
        do {
            replayer = try SessionReplayer(
                recording: recording, store: store, fingerprint: AppState.sessionFingerprint, values: values)
        } catch var error as SessionRecordingError {
            error.path = file.path
            throw error
        }
        self.recording = recording
        initialState = store.state
        initialDifferences = replayer.initialDifferences
        guard initialDifferences.isEmpty else { return }
        while let step = try replayer.next() {
            steps.append(step)
            if !step.matches { break }
        }
    }

    /// The first step whose fingerprint differs from the recording's, if any.
    var divergence: ReplayedStep<AppState, AppAction>? { steps.last.flatMap { $0.matches ? nil : $0 } }

    /// `true` when every recorded step replayed with the recorded fingerprint.
    var matches: Bool { initialDifferences.isEmpty && divergence == nil && steps.count == recording.steps.count }

    /// How a step prints: its number, source, time and action, then what it changed, one
    /// line per changed field (``StateChanges``), indented; with `fullState`, the whole state
    /// difference instead (`−` before, `+` after, in context). A step that differs says which parts.
    static func lines(for replayed: ReplayedStep<AppState, AppAction>, fullState: Bool = false) -> [String] {
        let step = replayed.step
        var lines = ["step \(step.index)  \(step.source.rawValue)  \(Self.time(step.milliseconds))  \(describe(step.event))"]
        if !fullState {
            let changes = StateChanges.lines(from: replayed.before, to: replayed.after)
            lines += changes.isEmpty ? ["    (no change)"] : changes.map { "    " + $0 }
        } else if let difference = diff(StateView(replayed.before), StateView(replayed.after)) {
            lines += difference.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + ControlCharacters.neutralize(String($0)) }
        } else {
            lines.append("    (no change)")
        }
        if !replayed.matches {
            lines.append("    ✗ differs from the recording: \(replayed.differingParts.joined(separator: ", "))")
        }
        return lines
    }

    /// A one-line description of a step's event.
    static func describe(_ event: SessionRecording<AppAction>.Event) -> String {
        switch event {
        case .action(let action):
            var line = ""
            for raw in String(customDumping: action).split(separator: "\n") {
                let part = raw.drop { $0 == " " }
                let tight = line.isEmpty || line.hasSuffix("(") || line.hasSuffix("[") || part.hasPrefix(")") || part.hasPrefix("]")
                line += (tight ? "" : " ") + part
            }
            return ControlCharacters.neutralize(line)
        case .undo: return "undo"
        case .redo: return "redo"
        case .external(let origin, _): return "external changes from \(ControlCharacters.neutralize(origin))"
        }
    }

    /// `HH:mm:ss.SSS` (UTC) of a step.
    static func time(_ milliseconds: Int64) -> String {
        let seconds = Int(milliseconds / 1000) % 86_400
        return String(format: "%02d:%02d:%02d.%03d", seconds / 3600, seconds / 60 % 60, seconds % 60, Int(milliseconds % 1000))
    }
}

/// The state as a replay prints it: entity stores as arrays (their dump without internals).
struct StateView: Equatable {
    var lists: [TodoList]
    var tags: [Tag]
    var items: [TodoItem]
    var itemTags: [ItemTag]
    var ui: UIState

    init(_ state: AppState) {
        lists = state.lists.values
        tags = state.tags.values
        items = state.items.values
        itemTags = state.itemTags.values
        ui = state.ui
    }
}
