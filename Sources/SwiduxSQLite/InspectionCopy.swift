import Foundation

/// A copy of a database file and its `-wal` in a temporary folder, to check a file whose
/// `-wal` has no `-shm` beside it.
///
/// Reading a WAL-mode file needs a `-shm` (the WAL's index): SQLite creates one next to the
/// file, even for a read-only connection, and none of its options reads the `-wal` without
/// it (`immutable` ignores the `-wal`; `readonly_shm` and `nolock` refuse to open). A `-wal`
/// without a `-shm` is left by no live connection (each one keeps the `-shm` while it has the
/// file open), so a copy taken now is the file as it stands, and the check of a file that is
/// then refused leaves it, its `-wal` and the missing `-shm` as they were. O(file) copied,
/// only in this case.
struct InspectionCopy {
    /// The copy of the database file (its `-wal` beside it).
    let path: String
    private let folder: URL

    /// Copies `path` and `path-wal`.
    init(of path: String) throws {
        let manager = FileManager.default
        folder = manager.temporaryDirectory.appendingPathComponent("swidux-inspect-\(UUID().uuidString)")
        self.path = folder.appendingPathComponent((path as NSString).lastPathComponent).path
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            try manager.copyItem(atPath: path, toPath: self.path)
            try manager.copyItem(atPath: path + "-wal", toPath: self.path + "-wal")
        } catch {
            try? manager.removeItem(at: folder)
            throw error
        }
    }

    /// Whether a `-wal` lies next to `path` without its `-shm`.
    static func isNeeded(for path: String) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: path + "-wal") && !manager.fileExists(atPath: path + "-shm")
    }

    /// Deletes the copy (and the `-shm` its check made).
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
