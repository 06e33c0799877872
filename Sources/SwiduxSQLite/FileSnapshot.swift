import Foundation

/// What a database file looks like from outside: to tell whether it changed, and whether
/// a connection has it open.
struct FileSnapshot: Equatable {
    var inode: UInt64?
    var size: UInt64?
    var modification: Date?
    var walSize: UInt64?
    var rollbackJournal: Bool

    /// Reads only metadata (`stat`): it never opens the file. A process that closes any
    /// descriptor of a database file drops every POSIX lock it holds on it, SQLite's
    /// included; another process then takes the file for its last user, checkpoints and
    /// deletes the `-wal` under this process's connections, and writes on both sides are
    /// lost (the many-writers model test lost another process's inserts when a second
    /// `SwiduxDatabase` opened the file).
    init(path: String) {
        let fileManager = FileManager.default
        let attributes = try? fileManager.attributesOfItem(atPath: path)
        inode = (attributes?[.systemFileNumber] as? NSNumber)?.uint64Value
        size = (attributes?[.size] as? NSNumber)?.uint64Value
        modification = attributes?[.modificationDate] as? Date
        walSize = ((try? fileManager.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.uint64Value
        rollbackJournal = fileManager.fileExists(atPath: path + "-journal")
    }

    /// Whether the header of the file at `path` says WAL mode (bytes 18 and 19 are 2).
    ///
    /// It opens and closes the file, which drops this process's POSIX locks on it (see
    /// ``init(path:)``): call it only when no connection of this process can hold the
    /// file, as when there is no `-wal` and its directory cannot be written.
    static func headerSaysWAL(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        let data = (try? handle.read(upToCount: 20)) ?? Data()
        try? handle.close()
        let header = Array(data)
        return header.count == 20 && header[18] == 2 && header[19] == 2
    }

    /// A `-wal` or `-journal` exists: a connection may have the database open, or crashed.
    var hasJournal: Bool { walSize != nil || rollbackJournal }
}
