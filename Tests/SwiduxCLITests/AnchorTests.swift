import Foundation
import Testing
@testable import SwiduxCLI

@Suite("Anchor")
struct AnchorTests {
    let text = """
        enum AppAction {
            case setStatusMessage(String?)
            // swidux:feature-actions
        }

        """

    @Test func insertsAboveTheAnchorWithItsIndentation() throws {
        let result = try Anchor.featureActions.insert("/// Todos.\ncase todo(TodoAction)", into: text, file: "AppAction.swift")
        #expect(result == """
            enum AppAction {
                case setStatusMessage(String?)
                /// Todos.
                case todo(TodoAction)
                // swidux:feature-actions
            }

            """)
    }

    @Test func laterInsertionsComeAfterEarlierOnes() throws {
        var result = try Anchor.featureActions.insert("case todo(TodoAction)", into: text, file: "AppAction.swift")
        result = try Anchor.featureActions.insert("case tag(TagAction)\n", into: result, file: "AppAction.swift")
        let lines = result.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(Array(lines[2...4]) == ["case todo(TodoAction)", "case tag(TagAction)", "// swidux:feature-actions"])
    }

    @Test func nestedSnippetLinesKeepTheirRelativeIndentation() throws {
        let reducer = "        switch action {\n        // swidux:feature-reducers\n        }"
        let result = try Anchor.featureReducers.insert("case .todo(let action):\n    return nil", into: reducer, file: "AppReducer.swift")
        #expect(result == "        switch action {\n        case .todo(let action):\n            return nil\n        // swidux:feature-reducers\n        }")
    }

    @Test func aBelowAnchorStaysFirstAndPutsTheNewestInsertionFirst() throws {
        let list = "    [\n        // swidux:persisted-entities\n    ]\n"
        var result = try Anchor.persistedEntities.insert(".entities(\\.lists, in: ListTable.table),", into: list, file: "AppStore.swift")
        result = try Anchor.persistedEntities.insert(".entities(\\.items, in: ItemTable.table),\n", into: result, file: "AppStore.swift")
        #expect(result == """
                [
                    // swidux:persisted-entities
                    .entities(\\.items, in: ItemTable.table),
                    .entities(\\.lists, in: ListTable.table),
                ]

            """)
        #expect(Anchor.persistedEntities.placement == .below && Anchor.writers.placement == .above)
    }

    @Test func aMissingAnchorFailsNamingTheAnchorAndTheFile() {
        #expect(throws: SwiduxCLIError.missingAnchor(anchor: "// swidux:writers", file: "AppStore.swift")) {
            try Anchor.writers.insert("x", into: text, file: "AppStore.swift")
        }
    }

    @Test func aDuplicatedAnchorIsRefusedToo() {
        let doubled = text + "// swidux:feature-actions\n"
        #expect(throws: SwiduxCLIError.missingAnchor(anchor: "// swidux:feature-actions", file: "AppAction.swift")) {
            try Anchor.featureActions.insert("x", into: doubled, file: "AppAction.swift")
        }
    }

    @Test func theMessageSaysWhatToDo() {
        let message = SwiduxCLIError.missingAnchor(anchor: "// swidux:writers", file: "Sources/Notes/App/AppStore.swift").description
        #expect(message.contains("'Sources/Notes/App/AppStore.swift' has no '// swidux:writers' line"))
        #expect(message.contains("nothing was changed"))
    }
}
