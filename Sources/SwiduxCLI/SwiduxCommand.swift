import ArgumentParser
import Foundation

/// The `swidux` command: scaffolds Swidux apps. `main.swift` of the `swidux` executable
/// only calls `SwiduxCommand.main()`.
public struct SwiduxCommand: ParsableCommand {
    /// The command's name, help and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "swidux",
        abstract: "Scaffolds Swidux apps: Redux-style state with automatic persistence.",
        discussion: """
            Examples:
              swidux new Notes                          # ./Notes, Swidux from \(SwiduxDependency.defaultURL)
              swidux new Notes --path ~/Code --swidux-version \(SwiduxDependency.exampleVersion)
              swidux new Notes --swidux-path ../Swidux  # a local checkout of Swidux
              cd Notes && swidux add feature Todo       # value type, table, action, reducer, writer, view, tests
              swift build && swift test && swift run NotesCLI
            """,
        version: SwiduxDependency.exampleVersion,
        subcommands: [New.self, Add.self]
    )

    /// Required by ArgumentParser; use `SwiduxCommand.main()` or `parseAsRoot(_:)`.
    public init() {}
}

extension SwiduxCommand {
    /// `swidux new <Name>`.
    public struct New: ParsableCommand {
        /// Help text with the generated layout and examples.
        public static let configuration = CommandConfiguration(
            abstract: "Creates a new Swidux app package in a new directory <path>/<Name>.",
            discussion: """
                The package (swift-tools-version 6.1, Swift 6 mode, macOS 14 / iOS 17) has:
                  Sources/<Name>/App/         AppState (@_exported import Swidux), UIState, AppAction,
                                              Effect/Send typealiases, AppEnvironment, AppReducer,
                                              AppStore (Store + PersistenceMiddleware), <Name>App
                  Sources/<Name>/Features/    RootView; one folder per feature
                  Sources/<Name>/Models/      Domain/ value types, Persistence/ tables
                  Sources/<Name>/Services/    AppDatabase (SwiduxSQLite; in memory in tests)
                  Sources/<Name>CLI/          the terminal entry point (Linux and Apple platforms)
                  Tests/<Name>Tests/          Swift Testing
                SwiftUI code is behind `#if canImport(SwiftUI)`: the package builds and tests on Linux.

                <Name> must be an UpperCamelCase Swift type name (A-Z first, then letters and digits),
                not a keyword nor a name the generated code uses. Nothing is written if anything fails.

                Examples:
                  swidux new Notes
                  swidux new Notes --path ~/Code --swidux-path ~/Code/Swidux
                  swidux new Notes --swidux-url https://github.com/me/Swidux --swidux-version 1.0.0
                """
        )

        /// The project name.
        @Argument(help: "The project name: an UpperCamelCase Swift type name, e.g. Notes.")
        public var name: String

        /// `--path`: where the project directory is created (default: the current directory).
        @Option(help: ArgumentHelp("The directory that receives the project directory.", valueName: "directory"))
        public var path: String = "."

        /// `--swidux-path`: a local Swidux checkout to depend on.
        @Option(help: ArgumentHelp("Depend on a local checkout of Swidux: .package(path:).", valueName: "path"))
        public var swiduxPath: String?

        /// `--swidux-version`: the minimum Swidux release; without it, the branch
        /// ``SwiduxDependency/defaultBranch`` (no release is tagged yet).
        @Option(help: ArgumentHelp("The Swidux release to depend on: .package(url:from:) (default: branch \(SwiduxDependency.defaultBranch), until a release is tagged).", valueName: "version"))
        public var swiduxVersion: String?

        /// `--swidux-url`: the Swidux repository (default ``SwiduxDependency/defaultURL``).
        @Option(help: ArgumentHelp("The Swidux repository URL (default: \(SwiduxDependency.defaultURL)).", valueName: "url"))
        public var swiduxURL: String?

        /// Required by ArgumentParser.
        public init() {}

        /// Rejects `--swidux-path` together with `--swidux-version` or `--swidux-url`.
        public func validate() throws {
            if swiduxPath != nil, swiduxVersion != nil || swiduxURL != nil {
                throw ValidationError("--swidux-path cannot be combined with --swidux-version or --swidux-url.")
            }
        }

        /// The dependency the options ask for.
        public var dependency: SwiduxDependency {
            if let swiduxPath { return .path(swiduxPath) }
            let url = swiduxURL ?? SwiduxDependency.defaultURL
            if let swiduxVersion { return .url(url, from: swiduxVersion) }
            return .branch(url, branch: SwiduxDependency.defaultBranch)
        }

        /// Generates the project; see ``ProjectGenerator/generate(name:in:dependency:)``.
        public func run() throws {
            let (result, created) = try ProjectGenerator.generate(
                name: name, in: URL(fileURLWithPath: path), dependency: dependency, creatingMissing: true)
            if let created { print("Created the directory \(created.path), which did not exist.") }
            print("Created \(result.directory.path) (\(result.files.count) files).")
            print("Next: cd \(result.directory.path) && swidux add feature <Name> && swift test")
        }
    }

    /// `swidux add` (its only subcommand: `feature`).
    public struct Add: ParsableCommand {
        /// Help text and the `feature` subcommand.
        public static let configuration = CommandConfiguration(
            abstract: "Adds code to an existing Swidux project.",
            subcommands: [Feature.self]
        )

        /// Required by ArgumentParser.
        public init() {}
    }
}

extension SwiduxCommand.Add {
    /// `swidux add feature <Name>`.
    public struct Feature: ParsableCommand {
        /// Help text with what is generated and examples.
        public static let configuration = CommandConfiguration(
            abstract: "Adds a feature: the seed's 10-step New Feature Checklist.",
            discussion: """
                Creates Models/Domain/<Name>.swift, Models/Persistence/<Name>Table.swift,
                Features/<Name>/{<Name>Action, <Name>Reducer, <Name>ListView}.swift and
                Tests/<Project>Tests/{<Name>ReducerTests, <Name>PersistenceTests}.swift, and edits
                AppState (EntityStore property), AppAction (case), AppReducer (case), AppStore
                (hydration and a StateWriter, appended after the existing writers: leaves first),
                AppDatabase (migration), RootView (link) and .swidux.json.

                Edits go above the `// swidux:<anchor>` comment lines that `swidux new` wrote; a
                missing anchor, an existing feature or file, or any other error changes nothing.

                Examples:
                  swidux add feature Todo
                  swidux add feature ShoppingList --path ~/Code/Notes
                """
        )

        /// The feature's name: its value type.
        @Argument(help: "The feature's value type: an UpperCamelCase Swift type name, e.g. Todo.")
        public var name: String

        /// `--path`: the project directory or a directory inside it (default: the current directory).
        @Option(help: ArgumentHelp("The project directory (or any directory inside it).", valueName: "directory"))
        public var path: String = "."

        /// Required by ArgumentParser.
        public init() {}

        /// Adds the feature; see ``FeatureAdder/add(feature:at:)``.
        public func run() throws {
            let result = try FeatureAdder.add(feature: name, at: URL(fileURLWithPath: path))
            print("Added the feature \(name) to \(result.root.path):")
            for file in result.created { print("  created  \(file)") }
            for file in result.modified { print("  modified \(file)") }
        }
    }
}
