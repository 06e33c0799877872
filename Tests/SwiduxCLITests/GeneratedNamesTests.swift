import Foundation
import Testing
@testable import SwiduxCLI

/// Issue 18 item 14: `swidux add feature` refuses every name the generated code declares
/// or uses — derived from the templates — naming the clash.
@Suite("Names the generated code declares or uses")
struct GeneratedNamesTests {
    @Test(arguments: [
        ("NotesCommandLine", "NotesCommandLine"),   // declared by the project (redeclaration)
        ("NotesApp", "NotesApp"),                   // declared by the project
        ("FileHandle", "FileHandle"),               // Foundation's type, used by the generated code
        ("MainActor", "MainActor"),                 // an attribute the generated code uses
        ("AppState", "AppState"),
        ("Root", "RootView"),                       // fine itself, but...
    ] as [(String, String)])
    func clashesAreRefusedNamingTheClash(name: String, clash: String) throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        let result = runSwidux(["add", "feature", name, "--path", root.path])
        if name == "Root" {
            // RootView is the project's; the feature Root declares RootAction, RootReducer,
            // RootListView…: no clash, accepted.
            #expect(result.code == 0, "\(result.message)")
            return
        }
        #expect(result.code != 0)
        #expect(result.message.contains("'\(clash)'"), "\(result.message)")
        #expect(result.message.contains("generated code"), "\(result.message)")
    }

    @Test func aFeatureWhoseGeneratedTypesClashIsRefused() throws {
        let temp = try TemporaryDirectory()
        defer { temp.remove() }
        let root = try generateProject(in: temp)
        // "App" itself and its derived "AppReducer"/"AppAction" are the project's.
        expectRefusal(["add", "feature", "App", "--path", root.path], in: temp, message: "'App")
        #expect(runSwidux(["add", "feature", "Todo", "--path", root.path]).code == 0)
        // The feature Todo's generated types are taken now.
        expectRefusal(["add", "feature", "TodoTable", "--path", root.path], in: temp, message: "'TodoTable'")
    }

    @Test func theReservedNamesComeFromTheTemplates() {
        let names = GeneratedNames.used(project: "Notes", features: [])
        for name in ["NotesCommandLine", "NotesApp", "FileHandle", "AppState", "AppStore", "EntityStore", "Foundation", "Testing"] {
            #expect(names[name] != nil, "\(name)")
        }
        // Words in comments and string literals are not code.
        #expect(names["Every"] == nil)
        #expect(names["The"] == nil)
        #expect(GeneratedNames.identifiers(in: #"let a = "Foo \(Bar)" // Baz"# + "\n/* Qux /* nested */ */ Quux") == ["let", "a", "Quux"])
    }
}
