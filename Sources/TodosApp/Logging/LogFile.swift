import Foundation
import Logging
import Swidux

/// Where `todos` writes the library's log while its full-screen UI runs: never to the
/// terminal, which the UI owns (a full-screen app prints nothing under its UI: a line
/// written there would corrupt the screen).
/// What the user must know reaches the status line; the details go to this file.
///
/// The path comes from `--log <path>`, else `TODOS_LOG`, else
/// `$XDG_STATE_HOME/todos/todos.log`, else `~/.local/state/todos/todos.log`.
///
/// ```swift
/// let path = LogFile.resolve(option: nil)   // ~/.local/state/todos/todos.log
/// LogFile.bootstrap(path: path)             // every Logger made from now on writes there
/// ```
enum LogFile {
    /// The log file's path for `option` (`--log`), the environment, or the default.
    static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return DatabaseLocation.expand(option, environment: environment) }
        if let path = environment["TODOS_LOG"], !path.isEmpty { return DatabaseLocation.expand(path, environment: environment) }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/todos/todos.log" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/todos/todos.log"
    }

    /// Sends every `Logger` made from now on to the file at `path` (created with its folder
    /// if missing, appended to otherwise). If the file cannot be opened, the log is dropped
    /// rather than printed under the UI; the returned message says why (for the status line).
    /// Call it once per process, before the first `Logger` is made.
    @discardableResult
    static func bootstrap(path: String) -> String? {
        let sink: FileLogSink?
        var problem: String?
        do {
            sink = try FileLogSink(path: path)
        } catch {
            sink = nil
            problem = "cannot write the log to \(path): \(error.localizedDescription)"
        }
        LoggingSystem.bootstrap { label in FileLogHandler(label: label, sink: sink) }
        return problem
    }
}

/// An open, append-only log file shared by every handler of the process; each line is
/// written whole, under a lock.
final class FileLogSink: Sendable {
    private let handle: LockedValue<FileHandle>

    init(path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        self.handle = LockedValue(handle)
    }

    func write(_ line: String) {
        handle.withLock { handle in _ = try? handle.write(contentsOf: Data(line.utf8)) }
    }
}

/// A swift-log handler that appends `time level label: message metadata` lines to a
/// ``FileLogSink`` (or drops them when there is none).
struct FileLogHandler: LogHandler {
    let label: String
    let sink: FileLogSink?
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard let sink else { return }
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let details = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = Date().formatted(.iso8601)
        sink.write("\(time) \(event.level) \(label): \(event.message)\(details)\n")
    }
}
