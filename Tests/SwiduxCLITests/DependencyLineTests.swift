import Foundation
import Testing
@testable import SwiduxCLI

/// The README, the DocC catalogs and the scaffolder name one package URL and one requirement
/// (branch `main` until a release is tagged: a `from:` line naming an untagged version
/// would not resolve).
struct DependencyLineTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The documents that show the dependency line.
    static let documents = [
        "README.md",
        "Sources/Swidux/Swidux.docc/GettingStarted.md",
    ]

    /// Every `.package(url: "…", from: "…")` or `branch: "…"` naming a Swidux repository in `text`.
    static func swiduxDependencyLines(in text: String) -> [String] {
        let pattern = #"\.package\(url: "[^"]*/[Ss]widux(\.git)?", (from|branch|revision): "[^"]*"\)"#
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range, in: text)!])
        }
    }

    @Test(arguments: documents)
    func theDocumentShowsTheScaffoldersDependencyLine(document: String) throws {
        let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let canonical = SwiduxDependency.default.packageDeclaration
        let lines = Self.swiduxDependencyLines(in: text)
        #expect(!lines.isEmpty, "\(document) shows no Swidux dependency line")
        for line in lines {
            #expect(line == canonical, "\(document) says \(line), the scaffolder \(canonical)")
        }
    }

    @Test func theScaffoldersGuideNamesTheSameURLAndVersion() throws {
        let guide = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Sources/SwiduxCLI/SwiduxCLI.docc/README-section.md"),
            encoding: .utf8)
        #expect(guide.contains("`\(SwiduxDependency.defaultURL)`"))
        #expect(guide.contains("branch: \"\(SwiduxDependency.defaultBranch)\""))
        #expect(!guide.contains("swidux-org"))
    }

    @Test func theCanonicalLineIsTheDocumentedOne() {
        // What the README shows; changing the URL or the version means changing it everywhere.
        #expect(SwiduxDependency.default.packageDeclaration
            == #".package(url: "https://github.com/swidux/Swidux", branch: "main")"#)
    }

    @Test func noReleaseIsPromisedBeforeItIsTagged() throws {
        // The changelog says how releases are tagged; until then the docs name the branch.
        let changelog = try String(contentsOf: Self.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("## Releases"))
        for document in Self.documents {
            let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(document), encoding: .utf8)
            #expect(!text.contains(#"from: "0.1.0""#), "\(document) names a release that is not tagged")
        }
    }
}
