import Foundation
import GRDB

/// Why a ``SwiduxDatabase`` could not be opened, read or written, naming the file.
///
/// The library never deletes, truncates or overwrites a file it cannot open: the
/// error tells you what is wrong so that your app can say so, move the file aside or
/// ask the user.
///
/// ```swift
/// do {
///     database = try SwiduxDatabase(path: url.path, migrations: .app)
/// } catch let error as SwiduxDatabaseError {
///     switch error.cause {
///     case .newerSchema: showAlert("This file was written by a newer version of the app.")
///     case .locked: showAlert("Another process is using \(error.path ?? "the database").")
///     default: showAlert(error.description)
///     }
/// }
/// ```
public struct SwiduxDatabaseError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    ///
    /// ```swift
    /// if error.cause == .readOnly { openInViewerMode() }
    /// ```
    public enum Cause: Sendable, Equatable, CustomStringConvertible {
        /// The file exists but is not an SQLite database (a text file, random bytes).
        case notADatabase
        /// The file is an SQLite database whose contents are damaged.
        case corrupt
        /// The database was migrated by a newer version of the app: it records
        /// migrations this app does not know.
        case newerSchema(unknownMigrations: [String])
        /// The file, or its directory, cannot be written; or the database was opened
        /// ``SwiduxDatabase/Access/readOnly`` and a flush tried to write.
        case readOnly
        /// Another connection or process holds a lock on the database and did not
        /// release it within the busy timeout.
        case locked
        /// The file cannot be opened or created (missing directory, permissions).
        case cannotOpen
        /// A stored row could not be decoded into an entity of the table.
        case undecodable(table: String)
        /// An entity could not be encoded for the table.
        case unencodable(table: String)
        /// A constraint (foreign key, unique, not null) refused a write.
        case constraintViolation
        /// Any other SQLite failure, with its primary result code.
        case sqlite(code: Int32)
        /// There is no database file at the path (opened with an access that does not create one).
        case noDatabase
        /// The database was closed (``SwiduxDatabase/close()``) before this use.
        case closed
        /// The file is an SQLite database of another application: its tables do not
        /// match this app's migrations, and nothing was written to it.
        case foreignSchema(detail: String)
        /// The database lacks migrations this app needs, and was opened with an access
        /// that does not migrate (``SwiduxDatabase/Access/readOnly``). Open it read-write
        /// once to migrate it.
        case needsMigration(pending: [String])
        /// The database file was deleted, moved or replaced since it was opened: the path
        /// no longer names the file the connection writes. A flush fails with this before
        /// it commits (its changes stay pending, retried once the file is back).
        case fileReplaced
        /// The file is encrypted by iOS data protection and its key is not available: the
        /// app was launched (for example in the background, by a notification or a background
        /// task) before the user first unlocked the device since it started, or the file's
        /// protection class is `complete` and the device is locked. Open the database again
        /// once protected data is available (`UIApplication.protectedDataDidBecomeAvailableNotification`),
        /// or give the file a protection class that allows background launches
        /// (`completeUntilFirstUserAuthentication`, the default for app files). See
        /// <doc:DataProtectionAndAppGroups>.
        case protectedDataUnavailable
        /// A failure that does not come from SQLite.
        case other

        /// A readable explanation.
        ///
        /// ```swift
        /// print(SwiduxDatabaseError.Cause.locked)  // "the database is locked by another connection or process"
        /// ```
        public var description: String {
            switch self {
            case .notADatabase: "the file is not an SQLite database"
            case .corrupt: "the database file is corrupt"
            case .newerSchema(let ids):
                "the database was migrated by a newer version of the app (unknown migrations: \(ids.joined(separator: ", ")))"
            case .readOnly: "the database is read-only (the file or its directory cannot be written, or it was opened read-only)"
            case .locked: "the database is locked by another connection or process"
            case .cannotOpen: "the database file cannot be opened"
            case .undecodable(let table): "a row of table \"\(table)\" cannot be decoded"
            case .unencodable(let table): "an entity of table \"\(table)\" cannot be encoded"
            case .constraintViolation: "a constraint of the database refused the write"
            case .sqlite(let code): "SQLite error \(code)"
            case .noDatabase: "there is no database file at this path"
            case .closed: "the database is closed"
            case .foreignSchema(let detail): "the file is not this app's database (\(detail))"
            case .needsMigration(let ids):
                "the database needs migrations that read-only access cannot run (pending: \(ids.joined(separator: ", ")))"
            case .fileReplaced: "the database file was deleted or replaced since it was opened; nothing was written (the changes are kept)"
            case .protectedDataUnavailable:
                "the file is protected by data protection and the device has not been unlocked since it started (or is locked): open it again once protected data is available"
            case .other: "the operation failed"
            }
        }
    }

    /// The database file, or `nil` for an in-memory database.
    public let path: String?
    /// What went wrong.
    public let cause: Cause
    /// The error reported by SQLite, GRDB or the coder, if any.
    public let underlying: (any Error)?

    /// Creates an error.
    ///
    /// ```swift
    /// throw SwiduxDatabaseError(path: "/tmp/app.sqlite", cause: .readOnly)
    /// ```
    public init(path: String?, cause: Cause, underlying: (any Error)? = nil) {
        self.path = path
        self.cause = cause
        self.underlying = underlying
    }

    /// One sentence, one line: "SQLite database <path>: <cause> (<underlying>)".
    ///
    /// ```swift
    /// logger.error("\(error.description)")
    /// // SQLite database /data/app.sqlite: the file is not an SQLite database (SQLite error 26: file is not a database)
    /// ```
    public var description: String {
        var text = "SQLite database \(path ?? "in memory"): \(cause)"
        if let underlying, let detail = Self.readable(underlying), !detail.isEmpty {
            text += " (\(detail))"
        }
        return text
    }

    /// A short, single-line account of an underlying error: never a raw dump of an
    /// `NSError` or of a coding error's context.
    static func readable(_ error: any Error) -> String? {
        let text: String
        switch error {
        case let error as DatabaseError:
            text = "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "\(error.resultCode)")"
        case let error as SwiduxDatabaseError:
            text = "\(error.cause)"
        case let error as DecodingError:
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context),
                 .keyNotFound(_, let context), .dataCorrupted(let context):
                text = codingDetail(context.debugDescription, path: context.codingPath)
            @unknown default: text = "the data cannot be decoded"
            }
        case let error as EncodingError:
            switch error {
            case .invalidValue(_, let context): text = codingDetail(context.debugDescription, path: context.codingPath)
            @unknown default: text = "the value cannot be encoded"
            }
        case let error as CocoaError:
            text = error.localizedDescription
        case let error as CustomStringConvertible where !(type(of: error) is NSError.Type):
            text = error.description
        default:
            text = (error as NSError).localizedDescription
        }
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 300 ? String(line.prefix(300)) + "…" : line
    }

    private static func codingDetail(_ message: String, path: [any CodingKey]) -> String {
        let keys = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return keys.isEmpty ? message : "\(keys): \(message)"
    }

    /// Wraps `error`, classifying SQLite result codes. A `SwiduxDatabaseError` is returned unchanged.
    static func wrapping(_ error: any Error, path: String?) -> SwiduxDatabaseError {
        if let error = error as? SwiduxDatabaseError {
            return error.path == nil ? SwiduxDatabaseError(path: path, cause: error.cause, underlying: error.underlying) : error
        }
        guard let databaseError = error as? DatabaseError else {
            return SwiduxDatabaseError(path: path, cause: .other, underlying: error)
        }
        var cause: Cause
        switch databaseError.resultCode {
        case .SQLITE_NOTADB: cause = .notADatabase
        case .SQLITE_CORRUPT: cause = .corrupt
        case .SQLITE_READONLY: cause = .readOnly
        case .SQLITE_BUSY, .SQLITE_LOCKED: cause = .locked
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: cause = .cannotOpen
        case .SQLITE_CONSTRAINT: cause = .constraintViolation
        default: cause = .sqlite(code: databaseError.resultCode.rawValue)
        }
        if ProtectedData.explains(databaseError.resultCode, path: path, isProtected: ProtectedData.isProtected) {
            cause = .protectedDataUnavailable
        }
        return SwiduxDatabaseError(path: path, cause: cause, underlying: databaseError)
    }
}
