import Foundation
import GRDB

/// iOS data protection: a protected file cannot be opened (SQLite says it cannot open it, or
/// reports an I/O error or a permission error) while its class key is unavailable — before
/// the first unlock after a restart, or while the device is locked for the `complete` class.
/// An open failure of such a file is reported as
/// ``SwiduxDatabaseError/Cause/protectedDataUnavailable`` instead of a bare SQLite code.
enum ProtectedData {
    /// Whether an SQLite failure with `code` on the file at `path` is explained by data
    /// protection: an open-like failure (`CANTOPEN`, `IOERR`, `PERM`, `AUTH`) of an existing
    /// file that `isProtected` says carries a protection class.
    static func explains(_ code: ResultCode, path: String?, isProtected: (String) -> Bool) -> Bool {
        guard let path else { return false }
        switch code {
        case .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_PERM, .SQLITE_AUTH: break
        default: return false
        }
        // Reads metadata only (never opens the file: see FileSnapshot).
        guard FileManager.default.fileExists(atPath: path) else { return false }
        return isProtected(path)
    }

    /// Whether the file at `path` has a data-protection class other than none (read from its
    /// attributes, without opening it). Always `false` where there is no data protection.
    static func isProtected(_ path: String) -> Bool {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        guard let protection = (try? FileManager.default.attributesOfItem(atPath: path))?[.protectionKey] as? FileProtectionType
        else { return false }
        return protection != FileProtectionType.none
        #else
        return false
        #endif
    }
}
