import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path names (device and inode): recorded when a database is opened, checked
/// before each flush commits, so that a flush never goes to a file that was deleted or
/// replaced since (its rows would be lost with the unlinked file).
struct FileIdentity: Equatable, Sendable, CustomStringConvertible {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` now, or `nil` when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    var description: String { "device \(device), inode \(inode)" }
}
