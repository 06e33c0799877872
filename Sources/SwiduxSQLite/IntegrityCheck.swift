/// When ``SwiduxDatabase`` runs `PRAGMA quick_check` on an existing file before using it.
/// The check reads every page of every table and index: its cost grows with the file
/// (hundreds of milliseconds for 100,000 rows on a phone). SQLite itself survives crashes
/// and power loss; the check finds damage from elsewhere (a failing disk, a bad copy).
///
/// ```swift
/// let database = try await SwiduxDatabase.open(path: path, migrations: .app,
///                                              integrityCheck: .afterUncleanShutdown)
/// ```
public enum IntegrityCheck: Sendable, Equatable {
    /// On every open.
    case always
    /// Only when the file has a write-ahead log (`-wal`) or rollback journal left: no
    /// connection closed it cleanly (the app was killed, crashed or lost power), or another
    /// process has it open. A file closed with ``SwiduxDatabase/close()`` (or released) has
    /// none.
    case afterUncleanShutdown
    /// Never at open; call ``SwiduxDatabase/checkIntegrity()`` when you choose (a settings
    /// screen, a background task).
    case never
}
