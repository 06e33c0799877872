/// The names the generated code declares or uses, derived from the templates themselves
/// (not from a hand-written list), so that a feature or project name that would
/// redeclare or shadow one of them is refused before anything is written.
///
/// A name counts when it appears as an identifier in the Swift code of the generated
/// files (comments and string literals removed) and starts with an uppercase letter —
/// types, modules, attributes, protocols: what a feature type could redeclare or shadow.
///
/// ```swift
/// GeneratedNames.used(project: "Notes", features: [])["FileHandle"]
/// // "Sources/Notes/App/NotesApp.swift"
/// ```
enum GeneratedNames {
    /// A project name that occurs in no template, to tell the project's own names apart.
    static let probeProject = "Zzqxprobeproject"
    /// A feature name that occurs in no template.
    static let probeFeature = "Zzqxprobefeature"

    /// Every type-level name used by the project `project` with `features`, except those
    /// a feature's templates derive from the feature's own name, each with the first file
    /// that uses it.
    static func used(project: String, features: [SwiftName]) -> [String: String] {
        var names = used(inFiles: projectFiles(project))
        // Names every feature's code uses (rendered for a probe feature, its own names left out).
        let probe = SwiftName(unchecked: probeFeature)
        for (name, file) in used(inFiles: featureFiles(project: project, feature: probe))
        where !name.contains(probe.typeName) && names[name] == nil {
            names[name] = file
        }
        // What the existing features declare.
        for feature in features {
            for (name, file) in used(inFiles: featureFiles(project: project, feature: feature)) where names[name] == nil {
                names[name] = file
            }
        }
        return names
    }

    /// The names a feature called `feature` declares: its type and every type its templates
    /// derive from it (`TodoAction`, `TodoReducer`, `TodoTable`, …), found by rendering the
    /// templates for a probe name.
    static func declared(byFeature feature: SwiftName) -> [String] {
        expand(featurePatterns, with: feature.typeName)
    }

    /// The names a project called `project` declares from its name (`NotesApp`, `NotesCommandLine`, …).
    static func declared(byProject project: String) -> [String] {
        expand(projectPatterns, with: project)
    }

    /// (prefix, suffix) around the probe feature's name in the names its templates use.
    static let featurePatterns: [(String, String)] = patterns(
        of: probeFeature, in: featureFiles(project: probeProject, feature: SwiftName(unchecked: probeFeature)), excluding: probeProject)

    /// (prefix, suffix) around the probe project's name in the names its templates use.
    static let projectPatterns: [(String, String)] = patterns(of: probeProject, in: projectFiles(probeProject), excluding: probeFeature)

    static func patterns(of probe: String, in files: [(path: String, contents: String)], excluding other: String) -> [(String, String)] {
        used(inFiles: files).keys.sorted().compactMap { name in
            guard !name.contains(other), let range = name.range(of: probe) else { return nil }
            return (String(name[..<range.lowerBound]), String(name[range.upperBound...]))
        }
    }

    static func expand(_ patterns: [(String, String)], with name: String) -> [String] {
        var seen: Set<String> = [name]
        var result = [name]
        for (prefix, suffix) in patterns where seen.insert(prefix + name + suffix).inserted { result.append(prefix + name + suffix) }
        return result
    }

    /// The first clash of `feature` with the generated code of `project` and `features`:
    /// the clashing name and the file using it, or `nil`.
    static func clash(ofFeature feature: SwiftName, project: String, features: [SwiftName]) -> (name: String, file: String)? {
        let names = project == probeProject && features.isEmpty ? projectIndependent : used(project: project, features: features)
        for name in declared(byFeature: feature) {
            if let file = names[name] { return (name, file) }
        }
        return nil
    }

    /// The first clash of the project name `project` with the names its generated code uses
    /// regardless of its name, or `nil`.
    static func clash(ofProject project: String) -> (name: String, file: String)? {
        let names = projectIndependent
        for name in declared(byProject: project) {
            if let file = names[name] { return (name, file) }
        }
        return nil
    }

    /// The names used whatever the project and its features are called (rendered once).
    static let projectIndependent: [String: String] = used(project: probeProject, features: []).filter { !$0.key.contains(probeProject) }

    /// The refusal's reason: "it collides with a name the generated code already uses: 'X' (in file)".
    static func reason(for clash: (name: String, file: String), name: String) -> String {
        // A name checked before the project is known was found in files rendered for the
        // probe names, which mean nothing to the user: those parts read as placeholders.
        let file = clash.file
            .replacingOccurrences(of: probeProject, with: "<Project>")
            .replacingOccurrences(of: probeFeature, with: "<Feature>")
        if clash.name == name {
            return "it collides with a name the generated code already uses: '\(clash.name)' (in \(file))"
        }
        return "its generated name '\(clash.name)' collides with a name the generated code already uses (in \(file))"
    }

    // MARK: - Rendering

    /// The Swift files of a new project (the manifest is its own module: left out).
    static func projectFiles(_ project: String) -> [(path: String, contents: String)] {
        let name = SwiftName(unchecked: project)
        return ProjectTemplates.files(name: name, dependency: .default)
            .filter { $0.path.hasSuffix(".swift") && $0.path != "Package.swift" }
            .map { ($0.path, $0.contents) }
    }

    /// The Swift files and snippets `swidux add feature` writes for `feature`.
    static func featureFiles(project: String, feature: SwiftName) -> [(path: String, contents: String)] {
        FeatureTemplates.newFiles(project: project, feature: feature).map { ($0.path, $0.contents) }
            + FeatureTemplates.insertions(project: project, feature: feature).map { ($0.path, $0.snippet) }
    }

    static func used(inFiles files: [(path: String, contents: String)]) -> [String: String] {
        var names: [String: String] = [:]
        for file in files {
            for name in identifiers(in: file.contents) where name.first?.isUppercase == true && names[name] == nil {
                names[name] = file.path
            }
        }
        return names
    }

    // MARK: - Lexing

    /// The identifiers (and keywords) of Swift `source`, in order, outside comments and
    /// string literals (interpolations included: they hold no declarations).
    static func identifiers(in source: String) -> [String] {
        let s = Array(source.unicodeScalars)
        var result: [String] = []
        var i = 0
        func at(_ k: Int) -> Unicode.Scalar? { k < s.count ? s[k] : nil }
        func isStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
        func isPart(_ c: Unicode.Scalar) -> Bool { isStart(c) || ("0"..."9").contains(c) }
        while i < s.count {
            let c = s[i]
            if c == "/", at(i + 1) == "/" {
                while i < s.count, s[i] != "\n" { i += 1 }
            } else if c == "/", at(i + 1) == "*" {
                var depth = 1
                i += 2
                while i < s.count, depth > 0 {
                    if s[i] == "/", at(i + 1) == "*" { depth += 1; i += 2 }
                    else if s[i] == "*", at(i + 1) == "/" { depth -= 1; i += 2 }
                    else { i += 1 }
                }
            } else if c == "#" || c == "\"" {
                // A string literal, raw (`#"…"#`) or not, single- or multi-line.
                var hashes = 0
                var j = i
                while at(j) == "#" { hashes += 1; j += 1 }
                guard at(j) == "\"" else {
                    i += max(hashes, 1)   // `#if`, `#available`: the word is read next
                    continue
                }
                let multiline = at(j + 1) == "\"" && at(j + 2) == "\""
                let quotes = multiline ? 3 : 1
                j += quotes
                while j < s.count {
                    if s[j] == "\\", hashes == 0 { j += 2; continue }
                    if s[j] == "\"" {
                        var k = j, count = 0
                        while at(k) == "\"", count < quotes { count += 1; k += 1 }
                        var closing = 0
                        while closing < hashes, at(k) == "#" { closing += 1; k += 1 }
                        if count == quotes, closing == hashes { j = k; break }
                        j += 1
                        continue
                    }
                    j += 1
                }
                i = j
            } else if isStart(c) {
                var j = i
                while j < s.count, isPart(s[j]) { j += 1 }
                var word = String.UnicodeScalarView()
                word.append(contentsOf: s[i..<j])
                result.append(String(word))
                i = j
            } else if ("0"..."9").contains(c) {
                while i < s.count, isPart(s[i]) || s[i] == "." { i += 1 }
            } else {
                i += 1
            }
        }
        return result
    }
}
