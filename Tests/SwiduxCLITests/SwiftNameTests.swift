import Testing
@testable import SwiduxCLI

@Suite("SwiftName")
struct SwiftNameTests {
    @Test(arguments: [
        ("Todo", "todo", "todos"),
        ("ShoppingList", "shoppingList", "shoppingLists"),
        ("URLItem", "urlItem", "urlItems"),
        ("URL2", "url2", "url2s"),
        ("Category", "category", "categories"),
        ("Key", "key", "keys"),
        ("Box", "box", "boxes"),
        ("Status", "status", "statuses"),
        ("Match", "match", "matches"),
        ("Level2", "level2", "level2s"),
    ])
    func validNamesAndTheirDerivedNames(name: String, caseName: String, propertyName: String) throws {
        let swiftName = try SwiftName(name, role: .feature)
        #expect(swiftName.typeName == name)
        #expect(swiftName.caseName == caseName)
        #expect(swiftName.propertyName == propertyName)
    }

    @Test(arguments: [
        ("", "the name is empty"),
        ("todo", "starts with an uppercase letter"),
        ("1Todo", "starts with an uppercase letter"),
        ("Shopping_List", "only the ASCII letters"),
        ("Shopping List", "only the ASCII letters"),
        ("Café", "only the ASCII letters"),
        ("Todo-List", "only the ASCII letters"),
        ("Self", "Swift keyword"),
        ("Any", "Swift keyword"),
        ("Protocol", "Swift keyword"),
        ("Type", "Swift keyword"),
        ("AppState", "collides with a name the generated code already uses"),
        ("Effect", "collides with a name the generated code already uses"),
        ("String", "collides with a name the generated code already uses"),
        ("Default", "derived name 'default' is a Swift keyword"),
        ("Import", "derived name 'import' is a Swift keyword"),
        ("In", "derived name 'in' is a Swift keyword"),
        ("I", "derived name 'is' is a Swift keyword"),
        ("Ui", "derived name 'ui' is the UI state slice"),
        (String(repeating: "A", count: 65), "longer than 64"),
    ])
    func invalidFeatureNamesSayWhy(name: String, reason: String) {
        #expect {
            try SwiftName(name, role: .feature)
        } throws: { error in
            guard case .invalidName(let rejected, let message)? = error as? SwiduxCLIError else { return false }
            return rejected == name && message.contains(reason)
        }
    }

    @Test func aCollidingFeatureNameNamesNoInternalProbeFile() {
        #expect {
            try SwiftName("String", role: .feature)
        } throws: { error in
            guard case .invalidName(_, let message)? = error as? SwiduxCLIError else { return false }
            return !message.contains(GeneratedNames.probeProject) && !message.contains(GeneratedNames.probeFeature)
                && message.contains("Sources/<Project>/")
        }
    }

    @Test func moduleNamesAreReservedForProjectsOnly() throws {
        #expect(throws: SwiduxCLIError.self) { try SwiftName("SwiftUI", role: .project) }
        #expect(throws: SwiduxCLIError.self) { try SwiftName("Foundation", role: .project) }
        #expect(throws: SwiduxCLIError.self) { try SwiftName("Swidux", role: .project) }
        // A project's own case name is never used, so a keyword-like lowercase form is fine.
        #expect(try SwiftName("Default", role: .project).typeName == "Default")
    }

    @Test func theErrorMessageNamesTheInputAndTheRule() {
        let message = SwiduxCLIError.invalidName("todo", reason: "a type name starts with an uppercase letter A-Z").description
        #expect(message == "'todo' is not a valid name: a type name starts with an uppercase letter A-Z.")
    }
}
