/// A validated UpperCamelCase Swift type name and the names derived from it.
///
/// Accepted: an ASCII letter A–Z followed by ASCII letters and digits (`Todo`, `ShoppingList`,
/// `URLItem`, `Level2`), at most ``maximumLength`` characters. Rejected: anything else
/// (underscores, spaces, non-ASCII, a lowercase first letter), Swift keywords, and names
/// that collide with a name the generated code declares or uses (`AppState`, `Effect`,
/// `Store`, `String`, `FileHandle`, `SwiftUI`, ...: derived from the templates by
/// ``GeneratedNames``), also through the generated type names (`App` → `AppReducer`) and
/// the derived names:
/// the enum case (`todo`) and the `EntityStore` property (`todos`) must not be keywords.
///
/// ```swift
/// let name = try SwiftName("ShoppingList", role: .feature)
/// name.typeName      // "ShoppingList"
/// name.caseName      // "shoppingList"
/// name.propertyName  // "shoppingLists"
/// ```
public struct SwiftName: Hashable, Sendable, CustomStringConvertible {
    /// What the name is for: a project (a module) or a feature (a type in the module).
    public enum Role: Sendable {
        /// A project: also not the name of a module it imports.
        case project
        /// A feature: its derived case and property names must be usable too.
        case feature
    }

    /// The longest name accepted.
    public static let maximumLength = 64

    /// The type name, as given: `ShoppingList`.
    public let typeName: String
    /// The lowerCamelCase singular, for enum cases: `shoppingList`.
    public let caseName: String
    /// The lowerCamelCase plural, for `EntityStore` properties and table names: `shoppingLists`.
    public let propertyName: String

    /// The type name.
    public var description: String { typeName }

    /// Validates `raw` for `role`.
    /// - Throws: ``SwiduxCLIError/invalidName(_:reason:)`` saying what is wrong.
    public init(_ raw: String, role: Role) throws {
        func fail(_ reason: String) -> SwiduxCLIError { .invalidName(raw, reason: reason) }
        guard !raw.isEmpty else { throw fail("the name is empty") }
        guard raw.count <= Self.maximumLength else {
            throw fail("it is longer than \(Self.maximumLength) characters")
        }
        guard raw.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }) else {
            throw fail("use only the ASCII letters A-Z, a-z and the digits 0-9 (UpperCamelCase, e.g. ShoppingList)")
        }
        guard let first = raw.unicodeScalars.first, ("A"..."Z").contains(first) else {
            throw fail("a type name starts with an uppercase letter A-Z (UpperCamelCase, e.g. ShoppingList)")
        }
        if SwiftName.keywords.contains(raw) {
            throw fail("it is a Swift keyword")
        }
        if role == .project, SwiftName.reservedModuleNames.contains(raw) {
            throw fail("it is the name of a module the generated package imports")
        }
        let caseName = SwiftName.lowerCamel(raw)
        let propertyName = SwiftName.plural(caseName)
        // Names the templates use whatever the project is called (derived, not listed by hand).
        let unchecked = SwiftName(unchecked: raw)
        let clash = role == .feature
            ? GeneratedNames.clash(ofFeature: unchecked, project: GeneratedNames.probeProject, features: [])
            : GeneratedNames.clash(ofProject: raw)
        if let clash { throw fail(GeneratedNames.reason(for: clash, name: raw)) }
        if role == .feature {
            for derived in [caseName, propertyName] where SwiftName.keywords.contains(derived) {
                throw fail("its derived name '\(derived)' is a Swift keyword")
            }
            if propertyName == "ui" || caseName == "ui" {
                throw fail("its derived name 'ui' is the UI state slice")
            }
        }
        self.typeName = raw
        self.caseName = caseName
        self.propertyName = propertyName
    }

    /// The derived names without any check (rendering templates for a probe name).
    init(unchecked raw: String) {
        typeName = raw
        caseName = SwiftName.lowerCamel(raw)
        propertyName = SwiftName.plural(caseName)
    }

    /// `ShoppingList` → `shoppingList`, `URLItem` → `urlItem`, `URL` → `url`.
    static func lowerCamel(_ name: String) -> String {
        let characters = Array(name)
        var upperRun = 0
        while upperRun < characters.count, characters[upperRun].isUppercase { upperRun += 1 }
        // In "URLItem" the last capital of the run starts the next word.
        let lowered = upperRun > 1 && upperRun < characters.count && characters[upperRun].isLowercase
            ? upperRun - 1 : max(upperRun, 1)
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// English plural of the last word: `todo` → `todos`, `category` → `categories`, `box` → `boxes`.
    static func plural(_ word: String) -> String {
        let lower = word.lowercased()
        if ["s", "x", "z", "ch", "sh"].contains(where: { lower.hasSuffix($0) }) { return word + "es" }
        if lower.hasSuffix("y"), let beforeY = lower.dropLast().last, !"aeiou".contains(beforeY) {
            return String(word.dropLast()) + "ies"
        }
        return word + "s"
    }

    /// Swift's keywords (declarations, statements, expressions and types), plus the
    /// contextual ones that break a type or case name (`Type`, `Protocol`).
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension",
        "fileprivate", "func", "import", "init", "inout", "internal", "let", "open", "operator",
        "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw",
        "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "Type", "Protocol", "some", "any",
    ]

    /// Modules a generated package imports: its module must not shadow them.
    static let reservedModuleNames: Set<String> = [
        "Swift", "Foundation", "SwiftUI", "Testing", "XCTest", "Observation", "Dispatch",
        "Glibc", "Musl", "Darwin", "GRDB", "Logging", "Atomics", "ArgumentParser", "Combine",
    ]
}
