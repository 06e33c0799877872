import Foundation

/// A recorded session, read back: the steps a ``SessionRecorder`` wrote, in order.
///
/// ```swift
/// let recording = try SessionRecording<AppAction>(contentsOf: url)
/// for step in recording.steps {
///     print(step.index, step.source, step.event)
/// }
/// ```
///
/// `TestStore(replaying:…)` (SwiduxTesting) replays one; `todos replay FILE` prints one.
public struct SessionRecording<Action: Decodable> {
    /// What happened at a step.
    public enum Event {
        /// An action was sent (by the UI or by an effect: see ``Step/source``).
        case action(Action)
        /// ``Store/undo()`` changed the state.
        case undo
        /// ``Store/redo()`` changed the state.
        case redo
        /// External changes (another process, a sync engine) were taken in: `changes` holds,
        /// per fingerprinted entity store, what they did to it (JSON).
        case external(origin: String, changes: [String: String])
    }

    /// One step of the recording.
    public struct Step {
        /// Its index in the session (0 for the first step of an unrotated recording).
        public var index: Int
        /// Its line in the file (1-based; line 1 is the header).
        public var line: Int
        /// What happened.
        public var event: Event
        /// Where it came from (the UI, an effect, another writer, sync).
        public var source: ActionSource
        /// When it happened, in milliseconds since 1970 (``SessionValues/now()`` during the step).
        public var milliseconds: Int64
        /// The fingerprint of each part after the step, in ``SessionRecording/parts`` order.
        public var fingerprint: [String]
        /// For an undo or a redo recorded with snapshots (``SessionRecorder`` `snapshot: true`):
        /// what it did to each fingerprinted part (JSON), for a replay whose history lacks the
        /// step it goes back to (a rotated file replayed alone).
        public var changes: [String: String]?

        /// When it happened.
        public var time: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    }

    /// The fingerprinted parts, by name (``StateFingerprint/partNames``).
    public var parts: [String]
    /// The fingerprint of the state before the first step, if the recorder saw it.
    public var initialFingerprint: [String]?
    /// The fingerprinted parts' values at the start (part name → JSON), when the recorder took
    /// a snapshot (`snapshot: true`); a replay starts from them.
    public var initialSnapshot: [String: String]?
    /// The seed of the ids ``SessionValues`` made during the steps.
    public var seed: UInt64
    /// The steps, in the order they happened.
    public var steps: [Step]
    /// What was read past without failing: a last line cut short (a crash while it was
    /// written), named by file and line. ``steps`` holds every complete step before it; a
    /// replay shows these warnings.
    ///
    /// ```swift
    /// for warning in recording.warnings { print("warning:", warning) }
    /// // warning: Recording session.jsonl, line 812: is cut short (…); the 810 steps before it are read
    /// ```
    public var warnings: [SessionRecordingError] = []

    /// Reads a recording.
    ///
    /// ```swift
    /// let recording = try SessionRecording<AppAction>(contentsOf: URL(fileURLWithPath: "session.jsonl"))
    /// ```
    ///
    /// A last line that is not complete JSON (the session crashed while writing it) does not
    /// fail the reading: the steps before it are read, and ``warnings`` names it. A damaged
    /// line before the last one throws.
    ///
    /// - Throws: ``SessionRecordingError`` naming the file, the line and the cause (not a
    ///   recording, a newer format, an action that does not decode).
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SessionRecordingError(path: url.path, line: nil, reason: "cannot be read (\(error.localizedDescription))")
        }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        let decoder = JSONDecoder()
        func fail(_ line: Int, _ reason: String) -> SessionRecordingError {
            SessionRecordingError(path: url.path, line: line, reason: reason)
        }
        guard let first = lines.first, let header = try? decoder.decode(SessionLine<Action>.self, from: Data(first)),
              header.format == SessionLine<Action>.formatName
        else { throw fail(1, "is not a Swidux session recording (no header line)") }
        guard let version = header.version, version <= SessionLine<Action>.currentVersion else {
            throw fail(1, "has format version \(header.version.map(String.init) ?? "?"), newer than this reader's \(SessionLine<Action>.currentVersion)")
        }
        parts = header.parts ?? []
        initialFingerprint = header.fingerprint.map { $0.split(separator: ".").map(String.init) }
        initialSnapshot = header.changes
        seed = header.seed.flatMap { UInt64($0, radix: 16) } ?? 0
        steps = []
        var index = header.first ?? 0
        let lastLine = lines.lastIndex { !Self.isBlank($0) } ?? 0
        for (offset, bytes) in lines.dropFirst().enumerated() {
            let lineNumber = offset + 2
            if Self.isBlank(bytes) { continue }
            let line: SessionLine<Action>
            do {
                line = try decoder.decode(SessionLine<Action>.self, from: Data(bytes))
            } catch {
                // A crash while the writer appended a batch leaves its last line unfinished:
                // the steps before it are whole, and they are the ones a user wants to replay.
                if offset + 1 == lastLine, (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) == nil {
                    let stepCount = steps.count
                    warnings.append(fail(lineNumber, """
                        is cut short (\(bytes.count) bytes that are not a whole line: the session ended while writing it); \
                        the \(stepCount) step\(stepCount == 1 ? "" : "s") before it are read
                        """))
                    break
                }
                throw fail(lineNumber, "does not decode (\(Self.describe(error)))")
            }
            let event: Event
            switch line.kind {
            case nil:
                guard let action = line.action else { throw fail(lineNumber, "has a step with no action") }
                event = .action(action)
            case "undo": event = .undo
            case "redo": event = .redo
            case "external": event = .external(origin: line.origin ?? "", changes: line.changes ?? [:])
            case let other?: throw fail(lineNumber, "has a step of unknown kind \"\(other)\"")
            }
            steps.append(Step(
                index: index, line: lineNumber, event: event, source: line.source ?? .ui,
                milliseconds: line.time ?? 0,
                fingerprint: (line.fingerprint ?? "").split(separator: ".").map(String.init),
                changes: line.kind == "undo" || line.kind == "redo" ? line.changes : nil))
            index += 1
        }
    }

    /// A line of spaces only (or empty): skipped.
    static func isBlank(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == UInt8(ascii: " ") }
    }

    /// A decoding error in one line, without Foundation's long context dump.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context),
             .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "at \(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// A recording that cannot be read or written: names the file, the line and the cause.
///
/// ```swift
/// do { _ = try SessionRecording<AppAction>(contentsOf: url) }
/// catch let error as SessionRecordingError { print(error) }  // "session.jsonl, line 3: does not decode (…)"
/// ```
public struct SessionRecordingError: Error, CustomStringConvertible, Sendable {
    /// The file.
    public var path: String
    /// The line (1-based), when the cause is in one.
    public var line: Int?
    /// What is wrong.
    public var reason: String

    /// "Recording session.jsonl, line 3: does not decode (…)".
    public var description: String {
        "Recording \(path)\(line.map { ", line \($0)" } ?? ""): \(reason)"
    }
}
