/// How a generated project's `AppStore.swift` declares its persisted entity stores, which
/// decides what `swidux add feature` inserts there.
///
/// Projects generated now list each entity store once, at `// swidux:persisted-entities`,
/// in the list `AppStore.live` hands to SwiduxSQLite's `persistence(hydrating:_:)`.
/// Projects generated before that registered each one twice: a hydration line at
/// `// swidux:hydrate` and a `StateWriter` at `// swidux:writers`. `add feature` keeps
/// filling those two anchors in such a project, so it goes on building; moving it to the
/// one-line form is a manual edit (README-section.md, "Projects generated earlier").
///
/// ```swift
/// PersistenceLayout(appStore: "...\n    // swidux:persisted-entities\n...")  // .persistedEntities
/// PersistenceLayout(appStore: "...\n    // swidux:hydrate\n...")             // .hydrateAndWriters
/// ```
enum PersistenceLayout: Equatable, Sendable {
    /// One `.entities(…)` line per feature at ``Anchor/persistedEntities``.
    case persistedEntities
    /// A hydration line at ``Anchor/hydrate`` and a writer at ``Anchor/writers`` per feature
    /// (projects generated before ``Anchor/persistedEntities`` existed).
    case hydrateAndWriters

    /// The layout of the `AppStore.swift` whose text is `appStore`: the two-anchor form if it
    /// has either of its anchors and not the new one (a missing partner is then reported by
    /// name), otherwise the current form (a file with no anchor at all is told about the
    /// current anchor).
    init(appStore: String) {
        if !Anchor.persistedEntities.occurs(in: appStore),
           Anchor.hydrate.occurs(in: appStore) || Anchor.writers.occurs(in: appStore) {
            self = .hydrateAndWriters
        } else {
            self = .persistedEntities
        }
    }
}
