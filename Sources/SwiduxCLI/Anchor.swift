import Foundation

/// An insertion point in a generated file: a comment line `// swidux:<name>` that
/// `swidux new` writes and `swidux add feature` inserts code above.
///
/// Code is inserted **above** the anchor, re-indented to the anchor's indentation, so the
/// anchor stays last and features appear in the order they were added (which is what
/// keeps writers leaves-first: see ``FeatureAdder``).
///
/// ```swift
/// var text = "enum AppAction {\n    // swidux:feature-actions\n}\n"
/// text = try Anchor.featureActions.insert("case todo(TodoAction)", into: text, file: "AppAction.swift")
/// // enum AppAction {
/// //     case todo(TodoAction)
/// //     // swidux:feature-actions
/// // }
/// ```
public struct Anchor: Hashable, Sendable, CustomStringConvertible {
    /// The part after `swidux:`.
    public let name: String

    /// The comment as it appears in a file: `// swidux:<name>`.
    public var description: String { "// swidux:\(name)" }

    /// An anchor named `name`.
    public init(_ name: String) { self.name = name }

    /// `AppState`: one `EntityStore` property per feature.
    public static let featureStates = Anchor("feature-states")
    /// `AppAction`: one case per feature.
    public static let featureActions = Anchor("feature-actions")
    /// `AppReducer`: one `case` per feature, delegating to the feature's reducer.
    public static let featureReducers = Anchor("feature-reducers")
    /// `AppStore`: loading each feature's table into the initial state.
    public static let hydrate = Anchor("hydrate")
    /// `AppStore`: one `StateWriter` per feature, in registration (flush) order.
    public static let writers = Anchor("writers")
    /// `AppDatabase`: one migration per feature, creating its table.
    public static let migrations = Anchor("migrations")
    /// `RootView`: one navigation link per feature.
    public static let featureViews = Anchor("feature-views")
    /// The command-line entry point: one summary line per feature.
    public static let summary = Anchor("summary")

    /// Inserts `snippet` (one or more lines, written without indentation) above the only
    /// line of `text` that is this anchor, indented like the anchor.
    /// - Throws: ``SwiduxCLIError/missingAnchor(anchor:file:)`` if the anchor is not
    ///   there (or is there more than once, which is as unusable).
    public func insert(_ snippet: String, into text: String, file: String) throws -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let matches = lines.indices.filter { lines[$0].trimmingCharacters(in: .whitespaces) == description }
        guard matches.count == 1, let index = matches.first else {
            throw SwiduxCLIError.missingAnchor(anchor: description, file: file)
        }
        let indentation = String(lines[index].prefix { $0 == " " || $0 == "\t" })
        let body = snippet.hasSuffix("\n") ? String(snippet.dropLast()) : snippet
        let inserted = body.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.isEmpty ? "" : indentation + $0
        }
        lines.insert(contentsOf: inserted, at: index)
        return lines.joined(separator: "\n")
    }
}
