import Foundation

/// `swidux add feature`: performs the seed's "New Feature Checklist" on a generated project.
///
/// | step | what is generated |
/// |---|---|
/// | 1 value type | `Models/Domain/<Name>.swift`: `Identifiable, Equatable, Sendable, Codable` |
/// | 2 persistence mapping | `Models/Persistence/<Name>Table.swift`: an `EntityTable` + migration in `AppDatabase` |
/// | 3 DB service | none needed: `AppDatabase` (SwiduxSQLite) serves every table; the in-memory database is the mock |
/// | 4 state | `var <names> = EntityStore<Name>()` in `AppState` |
/// | 5 action | `Features/<Name>/<Name>Action.swift`, `case <name>(<Name>Action)` in `AppAction` |
/// | 6 reducer | `Features/<Name>/<Name>Reducer.swift`: `SwiduxReducer` |
/// | 7 wiring | a `case` in `AppReducer` |
/// | 8 writer | one `.entities(\.<names>, in: <Name>Table.table)` line in `AppStore.persistedEntities` (hydration and writer), **first** in the list |
/// | 9 view | `Features/<Name>/<Name>ListView.swift`, behind `#if canImport(SwiftUI)`, linked from `RootView` |
/// | 10 tests | `Tests/<Project>Tests/<Name>ReducerTests.swift` and `<Name>PersistenceTests.swift` |
///
/// Writer order: a new feature is listed first. SwiduxSQLite flushes every writer in one
/// transaction with foreign keys checked at the commit, and recommends children first: an
/// entity store comes before the stores it references, so that `ON DELETE CASCADE` or
/// `SET NULL` never acts before a child's own deletion. A new feature may reference
/// existing ones, never the reverse (they were written before it existed), so putting it
/// first keeps the order valid. If you later make an older entity reference a newer one,
/// move its line above the newer one's.
///
/// A project generated before the one-line form (its `AppStore.swift` has the `hydrate` and
/// `writers` anchors: see `PersistenceLayout`) gets the two lines it had before, its
/// writer appended last, as it used to ("leaves first").
///
/// No `nonisolated init`: the generated package does not use main-actor default isolation
/// (`swift-tools-version: 6.1` has no `defaultIsolation`), so value types are already nonisolated.
public enum FeatureAdder {
    /// Adds the feature `name` to the project at or above `directory`.
    ///
    /// Everything is rendered in memory first (a missing anchor or file fails here), then
    /// staged, re-checked for conflicts and applied; on any error no file is changed.
    ///
    /// - Returns: The project root and the files created and modified, relative to it.
    /// - Throws: ``SwiduxCLIError``.
    @discardableResult
    public static func add(
        feature name: String,
        at directory: URL
    ) throws -> (root: URL, created: [String], modified: [String]) {
        let feature = try SwiftName(name, role: .feature)
        try FileTransaction.requireDirectory(directory)
        let root = try ProjectMarker.findProjectRoot(from: directory)
        let markerURL = root.appendingPathComponent(ProjectMarker.fileName)
        let markerText = try read(ProjectMarker.fileName, in: root)
        var marker = try ProjectMarker.read(from: markerURL)
        let project: SwiftName
        do { project = try SwiftName(marker.name, role: .project) } catch {
            throw SwiduxCLIError.invalidMarker(markerURL.path, reason: "its name '\(marker.name)' is not a valid project name")
        }

        try checkConflicts(feature, project: project, existing: marker.features, root: root)

        let newFiles = FeatureTemplates.newFiles(project: project.typeName, feature: feature)
        var changes = newFiles.map { FileChange(path: $0.path, contents: $0.contents) }

        // Step 8's form follows the project's AppStore.swift (if it cannot be read, the
        // current form: the read below reports the file).
        let appStore = try? read(FeatureTemplates.appStorePath(project: project.typeName), in: root)
        let layout = appStore.map { PersistenceLayout(appStore: $0) } ?? .persistedEntities

        // Edits, grouped per file in first-use order.
        var edited: [(path: String, original: String, text: String)] = []
        for insertion in FeatureTemplates.insertions(project: project.typeName, feature: feature, layout: layout) {
            let index: Int
            if let existing = edited.firstIndex(where: { $0.path == insertion.path }) {
                index = existing
            } else {
                let original = try read(insertion.path, in: root)
                edited.append((insertion.path, original, original))
                index = edited.count - 1
            }
            edited[index].text = try insertion.anchor.insert(insertion.snippet, into: edited[index].text, file: insertion.path)
        }
        changes += edited.map { FileChange(path: $0.path, contents: $0.text, kind: .modify(original: $0.original)) }

        marker.features.append(feature.typeName)
        changes.append(FileChange(path: ProjectMarker.fileName, contents: marker.encoded(), kind: .modify(original: markerText)))

        try FileTransaction.apply(changes, under: root)
        return (root, newFiles.map(\.path), edited.map(\.path) + [ProjectMarker.fileName])
    }

    static func checkConflicts(_ feature: SwiftName, project: SwiftName, existing: [String], root: URL) throws {
        if feature.typeName == project.typeName {
            throw SwiduxCLIError.invalidName(feature.typeName, reason: "it is the project's (module's) name")
        }
        if let twin = existing.first(where: { $0.lowercased() == feature.typeName.lowercased() }) {
            throw SwiduxCLIError.featureExists(feature.typeName, reason: "\(ProjectMarker.fileName) lists '\(twin)'")
        }
        for other in existing {
            guard let otherName = try? SwiftName(other, role: .feature) else { continue }
            if otherName.propertyName == feature.propertyName || otherName.caseName == feature.caseName {
                throw SwiduxCLIError.invalidName(
                    feature.typeName, reason: "its state property '\(feature.propertyName)' collides with the feature '\(other)'")
            }
        }
        // Every name the project's generated code (its own and its features') declares or
        // uses, derived from the templates: a redeclaration or a shadowed type breaks the build.
        let features = existing.map { SwiftName(unchecked: $0) }
        if let clash = GeneratedNames.clash(ofFeature: feature, project: project.typeName, features: features) {
            let owner = features.first {
                GeneratedNames.used(inFiles: GeneratedNames.featureFiles(project: project.typeName, feature: $0))[clash.name] != nil
            }
            let reason = owner.map { "its generated names collide with the feature '\($0.typeName)': '\(clash.name)' is already used (in \(clash.file))" }
                ?? GeneratedNames.reason(for: clash, name: feature.typeName)
            throw SwiduxCLIError.invalidName(feature.typeName, reason: reason)
        }
        for file in FeatureTemplates.newFiles(project: project.typeName, feature: feature)
        where FileTransaction.itemExists(root.appendingPathComponent(file.path)) {
            throw SwiduxCLIError.featureExists(feature.typeName, reason: "'\(file.path)' already exists")
        }
        let folder = "Sources/\(project.typeName)/Features/\(feature.typeName)"
        if FileTransaction.itemExists(root.appendingPathComponent(folder)) {
            throw SwiduxCLIError.featureExists(feature.typeName, reason: "'\(folder)' already exists")
        }
    }

    private static func read(_ path: String, in root: URL) throws -> String {
        let url = root.appendingPathComponent(path)
        guard FileTransaction.itemExists(url) else { throw SwiduxCLIError.missingFile(path) }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw SwiduxCLIError.cannotRead(url.path, reason: "it is not readable UTF-8 text")
        }
        return text
    }
}
