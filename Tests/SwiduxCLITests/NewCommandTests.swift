import Foundation
import Testing
@testable import SwiduxCLI

@Suite("swidux new")
struct NewCommandTests {
    @Test func createsTheProjectWithItsMarker() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let result = runSwidux(["new", "Notes", "--path", temp.url.path, "--swidux-path", packageRoot.path])
        #expect(result.code == 0, "\(result.message)")
        let root = temp.url.appendingPathComponent("Notes")
        let marker = try ProjectMarker.read(from: root.appendingPathComponent(ProjectMarker.fileName))
        #expect(marker == ProjectMarker(name: "Notes"))
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(".package(path: \(swiftStringLiteral(packageRoot.standardizedFileURL.path)))"))
        // Only the project directory: the staging directory is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path) == ["Notes"])
    }

    @Test func withoutAPathTheDependencyIsTheVersionedPlaceholderURL() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        #expect(runSwidux(["new", "Notes", "--path", temp.url.path, "--swidux-version", "2.0.0"]).code == 0)
        let manifest = try String(contentsOfFile: temp.path("Notes", "Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".package(url: "https://github.com/swidux/Swidux", from: "2.0.0")"#))
    }

    @Test func anInvalidNameIsRefused() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        expectRefusal(["new", "my-app", "--path", temp.url.path], in: temp,
                      message: "'my-app' is not a valid name: use only the ASCII letters")
        expectRefusal(["new", "notes", "--path", temp.url.path], in: temp,
                      message: "'notes' is not a valid name: a type name starts with an uppercase letter")
        expectRefusal(["new", "Self", "--path", temp.url.path], in: temp, message: "it is a Swift keyword")
        expectRefusal(["new", "SwiftUI", "--path", temp.url.path], in: temp, message: "the name of a module")
    }

    @Test func anExistingDestinationIsNeverOverwritten() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        try FileManager.default.createDirectory(atPath: temp.path("Notes"), withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: temp.path("Notes", "Package.swift")))
        expectRefusal(["new", "Notes", "--path", temp.url.path], in: temp, message: "'\(temp.path("Notes"))' already exists")
        // An empty directory and a plain file count as existing too.
        try FileManager.default.createDirectory(atPath: temp.path("Empty"), withIntermediateDirectories: false)
        expectRefusal(["new", "Empty", "--path", temp.url.path], in: temp, message: "already exists")
        try Data().write(to: URL(fileURLWithPath: temp.path("File")))
        expectRefusal(["new", "File", "--path", temp.url.path], in: temp, message: "already exists")
    }

    @Test func aMissingPathIsCreatedAndSaidAndANonDirectoryRefused() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let made = runSwidux(["new", "Notes", "--path", temp.path("missing/Code"), "--swidux-path", packageRoot.path])
        #expect(made.code == 0, "\(made.message)")
        #expect(FileManager.default.fileExists(atPath: temp.path("missing/Code/Notes/Package.swift")))
        // A refused name leaves no directory behind.
        expectRefusal(["new", "notes", "--path", temp.path("other/Code")], in: temp, message: "uppercase")
        try Data().write(to: URL(fileURLWithPath: temp.path("file")))
        expectRefusal(["new", "Notes", "--path", temp.path("file")], in: temp, message: "'\(temp.path("file"))' is not a directory")
    }

    @Test func anUnwritableDirectoryIsRefusedWithNothingLeftBehind() throws {
        let temp = try TemporaryDirectory()
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temp.path("locked"))
            temp.remove()
        }
        if getuid() != 0 {
            try FileManager.default.createDirectory(atPath: temp.path("locked"), withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: temp.path("locked"))
            expectRefusal(["new", "Notes", "--path", temp.path("locked")], in: temp, message: "cannot write to '\(temp.path("locked"))'")
        } else {
            // Root writes anywhere a permission allows; /sys refuses even root.
            try #require(FileManager.default.fileExists(atPath: "/sys"), "no unwritable directory to test with")
            let result = runSwidux(["new", "Notes", "--path", "/sys"])
            #expect(result.code == 1)
            #expect(result.message.contains("cannot write to '/sys'"), "\(result.message)")
            #expect(!FileManager.default.fileExists(atPath: "/sys/Notes"))
        }
    }

    @Test func aSwiduxPathThatIsNotSwiduxIsRefused() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        expectRefusal(["new", "Notes", "--path", temp.url.path, "--swidux-path", temp.url.path], in: temp,
                      message: "is not the Swidux package: there is no readable Package.swift")
    }

    @Test func conflictingDependencyOptionsAreAUsageError() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        expectRefusal(["new", "Notes", "--path", temp.url.path, "--swidux-path", packageRoot.path, "--swidux-version", "1.0.0"],
                      in: temp, message: "--swidux-path cannot be combined", code: 64)
    }

    @Test func helpShowsExamples() {
        let rootHelp = SwiduxCommand.helpMessage()
        #expect(rootHelp.contains("Examples:"))
        #expect(rootHelp.contains("swidux new Notes"))
        let newHelp = SwiduxCommand.helpMessage(for: SwiduxCommand.New.self)
        #expect(newHelp.contains("--swidux-path"))
        #expect(newHelp.contains("swidux new Notes --path ~/Code --swidux-path ~/Code/Swidux"))
        let featureHelp = SwiduxCommand.helpMessage(for: SwiduxCommand.Add.Feature.self)
        #expect(featureHelp.contains("swidux add feature Todo"))
    }
}
