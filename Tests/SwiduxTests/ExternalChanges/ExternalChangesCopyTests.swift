import Testing
@testable import Swidux

@MainActor
@Suite("External changes: in place")
struct ExternalChangesCopyTests {
    @Test("Applying a batch edits the entity store in place (no copy of its storage)")
    func appliedInPlace() {
        let h = NotesHarness()
        var seed = ExternalChanges<NotesState>(origin: "test")
        for id in 0..<100 { seed.upsert(Note(id: id, text: "\(id)", tagID: nil), in: \.notes) }
        h.store.applyExternalChanges(seed)
        let before = h.store.state.notes.storageIdentity
        var changes = ExternalChanges<NotesState>(origin: "test")
        changes.upsert(Note(id: 5, text: "changed", tagID: nil), in: \.notes)
        h.store.applyExternalChanges(changes)
        #expect(h.store.state.notes[5]?.text == "changed")
        #expect(h.store.state.notes.storageIdentity == before)
    }
}
