import Foundation
import Swidux
import SwiduxTestSupport

/// The built `todos` executable, next to the test bundle in the build products directory.
/// `TODOS_EXECUTABLE` overrides it (to run the process tests against another build, e.g.
/// the one before a fix, and watch them fail).
func todosExecutable() throws -> URL {
    if let override = ProcessInfo.processInfo.environment["TODOS_EXECUTABLE"], !override.isEmpty {
        return URL(fileURLWithPath: override)
    }
    var candidates: [URL] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
    }
    let bundle = Bundle.main.bundleURL
    candidates += [bundle, bundle.deletingLastPathComponent(), bundle.deletingLastPathComponent().deletingLastPathComponent()]
    for directory in candidates {
        let url = directory.appendingPathComponent("todos")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
           FileManager.default.isExecutableFile(atPath: url.path) {
            return url
        }
    }
    throw ProcessFailure("the todos executable was not found next to the tests in \(candidates.map(\.path)); run `swift build` first")
}

struct ProcessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A finished run of `todos`: exit status, captured output, CPU and wall-clock time.
typealias RunResult = ChildProcess.Captured

/// A scratch directory with a database path for one test.
struct Sandbox: Sendable {
    let directory: URL
    var database: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("todos-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["TODOS_DB"] = database
        env["HOME"] = directory.path
        env.removeValue(forKey: "XDG_DATA_HOME")
        return env
    }

    /// Runs `todos arguments…` to completion.
    func run(_ arguments: String..., environment: [String: String]? = nil) async throws -> RunResult {
        try await run(arguments: arguments, environment: environment)
    }

    func run(arguments: [String], environment: [String: String]? = nil) async throws -> RunResult {
        try await ChildProcess.capture([try todosExecutable().path] + arguments, environment: environment ?? self.environment)
    }

    /// Runs `todos arguments…` as the unprivileged user `nobody` (uid and gid 65534, no
    /// supplementary groups), or returns `nil` when the tests do not run as root (then
    /// permissions already apply).
    func runUnprivileged(arguments: [String]) async throws -> RunResult? {
        // Through setpriv, not the spawn's own user switch: the build directory may sit in a
        // folder only root can enter (a `mktemp -d` clone), where `nobody` cannot reach the
        // executable's path, while setpriv opens it before it drops to `nobody`.
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return nil }
        return try await ChildProcess.capture(
            ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", try todosExecutable().path] + arguments,
            environment: environment)
    }

    /// The bytes of the file at `path`, or `nil` if there is none.
    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// `todos add …`; returns the new id (fails the call on a non-zero exit).
    func add(_ arguments: String...) async throws -> String {
        let result = try await run(arguments: ["add"] + arguments)
        guard result.status == 0 else { throw ProcessFailure("add \(arguments) failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `todos list --json …`, decoded.
    func listJSON(_ extra: String...) async throws -> [ItemRecord] {
        let result = try await run(arguments: ["list", "--json"] + extra)
        guard result.status == 0 else { throw ProcessFailure("list failed: \(result.stderr)") }
        return try JSONDecoder().decode([ItemRecord].self, from: Data(result.stdout.utf8))
    }
}

/// One element of `todos list --json`.
struct ItemRecord: Decodable, Equatable {
    var id: String
    var title: String
    var list: String
    var done: Bool
    var tags: [String]
}

final class LockedData: @unchecked Sendable {
    private let lock = LockedValue(())
    private var data = Data()
    private var done = false
    func set(_ value: Data) { lock.withLock { _ in data = value; done = true } }
    func append(_ value: Data) { lock.withLock { _ in data.append(value) } }
    var value: Data { lock.withLock { _ in data } }
    var isSet: Bool { lock.withLock { _ in done } }
}
