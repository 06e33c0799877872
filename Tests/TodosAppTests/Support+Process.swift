import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `todos` executable, next to the test bundle in the build products directory.
func todosExecutable() throws -> URL {
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

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A scratch directory with a database path for one test.
struct Sandbox {
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
    func run(_ arguments: String..., environment: [String: String]? = nil) throws -> RunResult {
        try run(arguments: arguments, environment: environment)
    }

    func run(arguments: [String], environment: [String: String]? = nil) throws -> RunResult {
        let process = Process()
        process.executableURL = try todosExecutable()
        process.arguments = arguments
        process.environment = environment ?? self.environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read stderr on another thread so that neither pipe can fill up and block the child.
        let errData = LockedData()
        let errReader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errData.isSet { usleep(1000) }
        return RunResult(status: process.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData.value, as: UTF8.self))
    }

    /// `todos list --json …`, decoded.
    func listJSON(_ extra: String...) throws -> [ItemRecord] {
        let result = try run(arguments: ["list", "--json"] + extra)
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
    private let lock = NSLock()
    private var data = Data()
    private var done = false
    func set(_ value: Data) { lock.lock(); data = value; done = true; lock.unlock() }
    func append(_ value: Data) { lock.lock(); data.append(value); lock.unlock() }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return done }
}
