/// Where a generated package gets Swidux from.
public enum SwiduxDependency: Equatable, Sendable {
    /// A local checkout: `.package(path:)`. The path should be absolute.
    case path(String)
    /// A released version: `.package(url:from:)`.
    case url(String, from: String)
    /// A branch: `.package(url:branch:)`. The default until a release is tagged.
    case branch(String, branch: String)

    /// The repository `swidux new` points at when neither `--swidux-path` nor `--swidux-url`
    /// is given: the canonical URL, the same in the README and the DocC catalogs (a test
    /// checks that they agree).
    public static let defaultURL = "https://github.com/swidux/Swidux"
    /// The branch `swidux new` depends on when `--swidux-version` is not given: no release
    /// is tagged yet, so a version requirement would not resolve (CHANGELOG, "Releases").
    public static let defaultBranch = "main"
    /// The version `--swidux-version` shows in examples: the first release, once tagged.
    public static let exampleVersion = "0.1.0"
    /// What `swidux new` depends on by default: ``defaultURL`` on ``defaultBranch``, the line
    /// the README and the DocC catalogs show.
    public static let `default` = SwiduxDependency.branch(defaultURL, branch: defaultBranch)

    /// The `dependencies:` entry of the generated `Package.swift`.
    public var packageDeclaration: String {
        switch self {
        case .path(let path): ".package(path: \(swiftStringLiteral(path)))"
        case .url(let url, let version): ".package(url: \(swiftStringLiteral(url)), from: \(swiftStringLiteral(version)))"
        case .branch(let url, let branch): ".package(url: \(swiftStringLiteral(url)), branch: \(swiftStringLiteral(branch)))"
        }
    }

    /// The package identity SwiftPM derives (the last path component, without `.git`),
    /// which `.product(name:package:)` must name.
    public var packageIdentity: String {
        let location: String
        switch self {
        case .path(let path): location = path
        case .url(let url, _), .branch(let url, _): location = url
        }
        var last = location.split(separator: "/").last.map(String.init) ?? "Swidux"
        if last.hasSuffix(".git") { last.removeLast(4) }
        return last
    }
}

/// `value` as a Swift string literal (quotes, backslashes and control characters escaped).
func swiftStringLiteral(_ value: String) -> String {
    var result = "\""
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        default:
            if scalar.value < 0x20 { result += "\\u{\(String(scalar.value, radix: 16))}" } else { result.unicodeScalars.append(scalar) }
        }
    }
    return result + "\""
}
