import Foundation
import Testing

/// The `swidux` executable itself: messages on standard error, a non-zero status, nothing
/// on standard output. It is built next to the test runner by `swift build --build-tests`.
@Suite("swidux executable")
struct ExecutableTests {
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("swidux")
    static let built = FileManager.default.isExecutableFile(atPath: executable.path)

    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The outputs are small: reading to the end before waiting cannot deadlock.
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    @Test(.enabled(if: built, "the swidux executable is not built next to the tests"))
    func badInputGoesToStandardErrorWithAFailureStatus() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let result = try run(["new", "notes", "--path", temp.url.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Error: 'notes' is not a valid name: a type name starts with an uppercase letter A-Z"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).isEmpty)
    }

    @Test(.enabled(if: built, "the swidux executable is not built next to the tests"))
    func helpSucceedsWithExamples() throws {
        let result = try run(["add", "feature", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"))
        #expect(result.stdout.contains("swidux add feature Todo"))
    }
}
