import Foundation

/// An insertion point in a generated file: a comment line `// swidux:<name>` that
/// `swidux new` writes and `swidux add feature` inserts code at.
///
/// Code is inserted **above** the anchor, re-indented to the anchor's indentation, so the
/// anchor stays last and features appear in the order they were added. One anchor takes
/// code **below** it instead (``persistedEntities``, ``Placement/below``): it
/// stays first, and the newest feature is listed first, which keeps the persisted entity
/// stores children first (see ``FeatureAdder``).
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

    /// Where inserted code goes: above the anchor (the default) or below it.
    public let placement: Placement

    /// Where an anchor puts the code inserted at it.
    public enum Placement: Hashable, Sendable {
        /// Above the anchor, after what earlier insertions put there: oldest first.
        case above
        /// Right below the anchor, before what earlier insertions put there: newest first.
        case below
    }

    /// The comment as it appears in a file: `// swidux:<name>`.
    public var description: String { "// swidux:\(name)" }

    /// An anchor named `name` that takes code at `placement`.
    ///
    /// ```swift
    /// Anchor("feature-states").placement                      // .above
    /// Anchor("persisted-entities", placement: .below)
    /// ```
    public init(_ name: String, placement: Placement = .above) {
        self.name = name
        self.placement = placement
    }

    /// `AppState`: one `EntityStore` property per feature.
    public static let featureStates = Anchor("feature-states")
    /// `AppAction`: one case per feature.
    public static let featureActions = Anchor("feature-actions")
    /// `AppReducer`: one `case` per feature, delegating to the feature's reducer.
    public static let featureReducers = Anchor("feature-reducers")
    /// `AppStore`: one `.entities(\.<names>, in: <Name>Table.table)` per feature, in the
    /// list `AppStore.live` hands to `persistence(hydrating:_:)` (hydration and writer in
    /// one line). Code goes **below** the anchor: newest first, so children come before
    /// the entities they reference (the flush order SwiduxSQLite recommends).
    public static let persistedEntities = Anchor("persisted-entities", placement: .below)
    /// `AppStore` of projects generated before ``persistedEntities``: loading each
    /// feature's table into the initial state. Still filled by `swidux add feature` when
    /// the project has it.
    public static let hydrate = Anchor("hydrate")
    /// `AppStore` of projects generated before ``persistedEntities``: one `StateWriter`
    /// per feature, in registration (flush) order. Still filled by `swidux add feature`
    /// when the project has it.
    public static let writers = Anchor("writers")
    /// `AppDatabase`: one migration per feature, creating its table.
    public static let migrations = Anchor("migrations")
    /// `RootView`: one navigation link per feature.
    public static let featureViews = Anchor("feature-views")
    /// The command-line entry point: one summary line per feature.
    public static let summary = Anchor("summary")

    /// Inserts `snippet` (one or more lines, written without indentation) above (or, for a
    /// ``Placement/below`` anchor, right below) the only line of `text` that is
    /// this anchor, indented like the anchor.
    /// - Throws: ``SwiduxCLIError/missingAnchor(anchor:file:)`` if the anchor is not
    ///   there (or is there more than once, which is as unusable).
    public func insert(_ snippet: String, into text: String, file: String) throws -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let matches = lines.indices.filter { isAnchor(lines[$0]) }
        guard matches.count == 1, let index = matches.first else {
            throw SwiduxCLIError.missingAnchor(anchor: description, file: file)
        }
        let indentation = String(lines[index].prefix { $0 == " " || $0 == "\t" })
        let body = snippet.hasSuffix("\n") ? String(snippet.dropLast()) : snippet
        let inserted = body.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.isEmpty ? "" : indentation + $0
        }
        lines.insert(contentsOf: inserted, at: placement == .above ? index : index + 1)
        return lines.joined(separator: "\n")
    }

    /// Whether `text` has at least one line that is this anchor.
    func occurs(in text: String) -> Bool {
        text.split(separator: "\n", omittingEmptySubsequences: false).contains { isAnchor(String($0)) }
    }

    private func isAnchor(_ line: String) -> Bool {
        line.trimmingCharacters(in: .whitespaces) == description
    }
}
