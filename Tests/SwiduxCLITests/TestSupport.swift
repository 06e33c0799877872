import ArgumentParser
import Foundation
import Testing
@testable import SwiduxCLI

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("swidux-cli-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    func path(_ components: String...) -> String {
        components.reduce(url) { $0.appendingPathComponent($1) }.path
    }
}

/// Every file and directory under `root` (hidden ones too) with the file contents:
/// equal snapshots mean an unchanged tree.
func snapshot(_ root: URL) -> [String: Data] {
    var result: [String: Data] = [:]
    let fileManager = FileManager.default
    guard let enumerator = fileManager.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return result }
    for case let url as URL in enumerator {
        let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count))
        let isDirectory = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
        result[relative] = isDirectory ? Data("<dir>".utf8) : (try? Data(contentsOf: url)) ?? Data("<unreadable>".utf8)
    }
    return result
}

/// Runs `swidux` in-process the way `SwiduxCommand.main()` does, returning the exit code
/// and the message `main()` would print on standard error.
func runSwidux(_ arguments: [String]) -> (code: Int32, message: String) {
    do {
        var command = try SwiduxCommand.parseAsRoot(arguments)
        try command.run()
        return (0, "")
    } catch {
        return (SwiduxCommand.exitCode(for: error).rawValue, SwiduxCommand.message(for: error))
    }
}

/// The root of this checkout (the Swidux package), from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Generates the project `Notes` (or `name`) in `directory`, depending on this checkout.
@discardableResult
func generateProject(_ name: String = "Notes", in directory: TemporaryDirectory) throws -> URL {
    try ProjectGenerator.generate(name: name, in: directory.url, dependency: .path(packageRoot.path)).directory
}

/// Runs `swidux arguments`, expects a failure with exit `code` whose message contains
/// `expected`, and checks that nothing under `temp` changed (no file written, none left behind).
func expectRefusal(_ arguments: [String], in temp: TemporaryDirectory, message expected: String,
                   code: Int32 = 1, sourceLocation: SourceLocation = #_sourceLocation) {
    let before = snapshot(temp.url)
    let result = runSwidux(arguments)
    #expect(result.code == code, sourceLocation: sourceLocation)
    #expect(result.message.contains(expected), "\(result.message)", sourceLocation: sourceLocation)
    #expect(snapshot(temp.url) == before, "the tree changed", sourceLocation: sourceLocation)
}
