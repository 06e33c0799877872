import GRDB

/// One `EntityStore` of your state persisted in one ``EntityTable``: declared once, it
/// gives both the hydration and the `StateWriter`
/// (``SwiduxDatabase/persistence(hydrating:_:debounce:clock:logger:retry:)``).
///
/// ```swift
/// var state = AppState()
/// let persistence = try database.persistence(hydrating: &state, [
///     .entities(\.todos, in: AppDatabase.todos),
/// ])
/// ```
///
/// The parts stay available: ``SwiduxDatabase/hydrate(_:)-6hsk8``,
/// ``SwiduxDatabase/hydrateAll(_:)`` and ``SwiduxDatabase/stateWriter(for:table:)``.
public struct PersistedEntities<State> {
    /// The table's name.
    ///
    /// ```swift
    /// PersistedEntities<AppState>.entities(\.todos, in: AppDatabase.todos).tableName  // "todo"
    /// ```
    public let tableName: String
    let mapping: any PersistedEntitiesMapping<State>

    /// The entity store at `keyPath`, persisted in `table`.
    ///
    /// ```swift
    /// .entities(\.todos, in: AppDatabase.todos)
    /// ```
    public static func entities<Entity>(
        _ keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        in table: EntityTable<Entity>
    ) -> PersistedEntities<State> {
        PersistedEntities(tableName: table.name, mapping: TypedPersistedEntities(keyPath: keyPath, table: table))
    }
}

/// The typed side of a ``PersistedEntities``.
protocol PersistedEntitiesMapping<State> {
    associatedtype State
    /// Reads the table into an `EntityStore` (run inside a read; captures only the table).
    var fetch: @Sendable (Database) throws -> any Sendable { get }
    /// Puts what ``fetch`` read into the state, recording nothing.
    func assign(_ fetched: any Sendable, to state: inout State)
    /// The writer persisting the store into the table.
    @MainActor func writer(on database: SwiduxDatabase) -> StateWriter<State>
}

struct TypedPersistedEntities<State, Entity: Identifiable & Equatable & Sendable>: PersistedEntitiesMapping
where Entity.ID: DatabaseValueConvertible & Sendable {
    let keyPath: WritableKeyPath<State, EntityStore<Entity>>
    let table: EntityTable<Entity>

    var fetch: @Sendable (Database) throws -> any Sendable {
        let table = table
        return { db in try table.fetchStore(db) }
    }

    func assign(_ fetched: any Sendable, to state: inout State) {
        state[keyPath: keyPath] = fetched as! EntityStore<Entity>
    }

    @MainActor func writer(on database: SwiduxDatabase) -> StateWriter<State> {
        database.stateWriter(for: keyPath, table: table)
    }
}
