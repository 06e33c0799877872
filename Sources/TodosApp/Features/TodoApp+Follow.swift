import SwiduxSQLite

extension TodoApp {
    /// Follows the database file: what other `todos` processes (another UI, scripted
    /// `add`/`done`/`rm`) commit reaches this app's store within a poll (50 ms) and the UI's
    /// next redraw. The edit rule: a change of this app not yet saved keeps its value over
    /// the other process's (it is saved later and wins); text being typed on the input line
    /// is never replaced; an item another process deleted stays deleted (delete wins).
    /// Read-only and in-memory databases are not followed.
    func followDatabase() throws {
        guard database.access != .readOnly, database.database.path != nil else { return }
        try store.follow(database.database)
    }
}
