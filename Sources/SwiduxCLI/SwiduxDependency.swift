/// Where a generated package gets Swidux from.
public enum SwiduxDependency: Equatable, Sendable {
    /// A local checkout: `.package(path:)`. The path should be absolute.
    case path(String)
    /// A released version: `.package(url:from:)`.
    case url(String, from: String)

    /// The repository `swidux new` points at when neither `--swidux-path` nor `--swidux-url`
    /// is given: the canonical URL, the same in the README and the DocC catalogs (a test
    /// checks that they agree).
    public static let defaultURL = "https://github.com/swidux/Swidux"
    /// The version `swidux new` asks for when `--swidux-version` is not given.
    public static let defaultVersion = "0.1.0"

    /// The `dependencies:` entry of the generated `Package.swift`.
    public var packageDeclaration: String {
        switch self {
        case .path(let path): ".package(path: \(swiftStringLiteral(path)))"
        case .url(let url, let version): ".package(url: \(swiftStringLiteral(url)), from: \(swiftStringLiteral(version)))"
        }
    }

    /// The package identity SwiftPM derives (the last path component, without `.git`),
    /// which `.product(name:package:)` must name.
    public var packageIdentity: String {
        let location: String
        switch self {
        case .path(let path): location = path
        case .url(let url, _): location = url
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
