import Foundation

/// Attaches and detaches tags. A tag is created on first use and removed when no item
/// carries it any more.
struct TagsReducer: SwiduxReducer {
    init() {}

    func reduce(state: inout AppState, action: TagsAction, environment: AppEnvironment) -> Effect<AppAction>? {
        switch action {
        case let .add(itemID, name, tagID):
            guard state.items.contains(itemID) else { return nil }
            if case .failure(let error) = Self.validate(name) { return environment.event(.error(error.description.capitalizedFirst)) }
            Self.attach(name: name, to: itemID, newTagID: tagID, state: &state)
            return environment.status("Tagged #\(name)")

        case let .remove(itemID, tagID):
            state.itemTags[ItemTag(itemID: itemID, tagID: tagID).id] = nil
            Self.dropUnused([tagID], state: &state)
            return nil

        case let .clear(itemID):
            let tagIDs = state.itemTags.filter { $0.itemID == itemID }.map(\.tagID)
            guard !tagIDs.isEmpty else { return environment.status("No tags to remove") }
            // Like a deletion, one key without a prompt: the status names what went and how to undo.
            let names = tagIDs.compactMap { state.tags[$0].map { "#" + $0.name } }.joined(separator: " ")
            state.itemTags.removeAll { $0.itemID == itemID }
            Self.dropUnused(tagIDs, state: &state)
            return environment.status("Removed \(names) (u: undo)")
        }
    }

    /// Tag names: no leading '#', no spaces (they become '-'). Never shortened: see ``validate(_:)``.
    static func normalize(_ name: String) -> String {
        var cleaned = Limits.clean(name)
        while cleaned.hasPrefix("#") { cleaned.removeFirst() }
        return String(cleaned.map { $0.isWhitespace ? "-" : $0 })
    }

    /// The normalized tag name, or why it is refused (nothing but '#' and spaces, over the limit).
    static func validate(_ raw: String) -> Result<String, TodosError> {
        let name = normalize(raw)
        if name.isEmpty { return .failure(TodosError("invalid tag “\(raw)”: a tag needs a character besides ‘#’ and spaces")) }
        if let excess = Limits.excess(name, max: Limits.name, what: "a tag") { return .failure(TodosError(excess)) }
        return .success(name)
    }

    static func attach(name: String, to itemID: UUID, newTagID: UUID, state: inout AppState) {
        guard case .success(let name) = validate(name) else { return }
        let tag: Tag
        if let existing = state.tag(named: name) {
            tag = existing
        } else {
            tag = Tag(id: newTagID, name: name)
            state.tags[tag.id] = tag
        }
        let link = ItemTag(itemID: itemID, tagID: tag.id)
        if !state.itemTags.contains(link.id) { state.itemTags[link.id] = link }
    }

    /// Deletes the tags among `tagIDs` that no item uses.
    static func dropUnused(_ tagIDs: [UUID], state: inout AppState) {
        let used = Set(state.itemTags.map(\.tagID))
        for id in tagIDs where !used.contains(id) { state.tags[id] = nil }
    }
}
