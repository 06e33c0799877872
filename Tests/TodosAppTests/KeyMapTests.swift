import Foundation
import Testing
@testable import TodosApp

@Suite struct KeyMapTests {
    let ids = IDSequence()
    func commands(_ key: KeyEvent, _ state: AppState) -> [Command] {
        KeyMap.commands(for: key, state: state, makeID: { ids() })
    }

    @Test func itemScreenKeys() {
        let state = sampleState()
        #expect(commands(.character(" "), state) == [.send(.items(.toggle(id: uuid(10))))])
        #expect(commands(.character("d"), state) == [.send(.items(.delete(id: uuid(10))))])
        #expect(commands(.character("J"), state) == [.send(.items(.move(id: uuid(10), offset: 1)))])
        #expect(commands(.character("u"), state) == [.undo])
        #expect(commands(.control("r"), state) == [.redo])
        #expect(commands(.character("q"), state) == [.quit])
        #expect(commands(.control("c"), state) == [.quit])
        #expect(commands(.character("/"), state) == [.send(.ui(.beginInput(.search)))])
        #expect(commands(.character("]"), state) == [.send(.lists(.select(id: uuid(2))))])
        #expect(commands(.unknown, state) == [])
        #expect(commands(.character("ß"), state) == [])
    }

    @Test func typingInSearchModeChangesTheSearchText() {
        var state = sampleState()
        state.apply(.ui(.beginInput(.search)))
        state.apply(.search(.apply("mi")))
        state.ui.searchText = "mi"
        #expect(commands(.character("l"), state) == [.send(.search(.textChanged("mil")))])
        #expect(commands(.backspace, state) == [.send(.search(.textChanged("m")))])
        #expect(commands(.escape, state) == [.send(.search(.clear))])
        #expect(commands(.character("q"), state) == [.send(.search(.textChanged("miq")))])   // q types, not quits
    }

    @Test func enterCommitsTheDraft() {
        var state = sampleState()
        state.apply(.ui(.beginInput(.addItem)))
        state.apply(.ui(.draftChanged("Bake bread #food #weekend")))
        #expect(commands(.enter, state) == [
            .send(.ui(.endInput)),
            .send(.items(.add(id: uuid(1000), listID: uuid(1), title: "Bake bread", tags: ["food", "weekend"]))),
        ])
    }

    @Test func parseTitle() {
        #expect(KeyMap.parseTitle("Buy milk #shop") == ("Buy milk", ["shop"]))
        #expect(KeyMap.parseTitle("C# is #fun") == ("C# is", ["fun"]))
        #expect(KeyMap.parseTitle("#") == ("#", []))
    }
}
