import Foundation
import SwiduxTestSupport
import Testing

/// The `swidux` executable itself: messages on standard error, a non-zero status, nothing
/// on standard output. It is built next to the test runner by `swift build --build-tests`.
@Suite("swidux executable")
struct ExecutableTests {
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("swidux")
    static let built = FileManager.default.isExecutableFile(atPath: executable.path)

    func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let out = temp.path("stdout"), err = temp.path("stderr")
        let status = try await ChildProcess.run([Self.executable.path] + arguments, in: temp.url, output: out, error: err)
        func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (status, read(out), read(err))
    }

    @Test(.enabled(if: built, "the swidux executable is not built next to the tests"))
    func badInputGoesToStandardErrorWithAFailureStatus() async throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let result = try await run(["new", "notes", "--path", temp.url.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Error: 'notes' is not a valid name: a type name starts with an uppercase letter A-Z"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).isEmpty)
    }

    @Test(.enabled(if: built, "the swidux executable is not built next to the tests"))
    func helpSucceedsWithExamples() async throws {
        let result = try await run(["add", "feature", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"))
        #expect(result.stdout.contains("swidux add feature Todo"))
    }
}
