import Foundation

/// What a database file looks like from outside: to tell whether it changed, and whether
/// a connection has it open.
struct FileSnapshot: Equatable {
    var inode: UInt64?
    var size: UInt64?
    var modification: Date?
    var walSize: UInt64?
    var rollbackJournal: Bool
    var isWALMode: Bool

    init(path: String) {
        let fileManager = FileManager.default
        let attributes = try? fileManager.attributesOfItem(atPath: path)
        inode = (attributes?[.systemFileNumber] as? NSNumber)?.uint64Value
        size = (attributes?[.size] as? NSNumber)?.uint64Value
        modification = attributes?[.modificationDate] as? Date
        walSize = ((try? fileManager.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.uint64Value
        rollbackJournal = fileManager.fileExists(atPath: path + "-journal")
        var header = [UInt8](repeating: 0, count: 20)
        if let handle = FileHandle(forReadingAtPath: path) {
            let data = (try? handle.read(upToCount: 20)) ?? Data()
            try? handle.close()
            header = Array(data)
        }
        isWALMode = header.count == 20 && header[18] == 2 && header[19] == 2
    }

    /// A `-wal` or `-journal` exists: a connection may have the database open, or crashed.
    var hasJournal: Bool { walSize != nil || rollbackJournal }
}
