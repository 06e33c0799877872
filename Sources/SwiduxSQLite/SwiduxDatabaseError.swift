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
        /// The file, or its directory, cannot be written.
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
            case .readOnly: "the database file or its directory is read-only"
            case .locked: "the database is locked by another connection or process"
            case .cannotOpen: "the database file cannot be opened"
            case .undecodable(let table): "a row of table \"\(table)\" cannot be decoded"
            case .unencodable(let table): "an entity of table \"\(table)\" cannot be encoded"
            case .constraintViolation: "a constraint of the database refused the write"
            case .sqlite(let code): "SQLite error \(code)"
            case .noDatabase: "there is no database file at this path"
            case .closed: "the database is closed"
            case .foreignSchema(let detail): "the file is not this app's database (\(detail))"
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

    /// "SQLite database <path>: <cause> (<underlying>)".
    ///
    /// ```swift
    /// logger.error("\(error.description)")
    /// // SQLite database /data/app.sqlite: the file is not an SQLite database (SQLite error 26: file is not a database)
    /// ```
    public var description: String {
        var text = "SQLite database \(path ?? "in memory"): \(cause)"
        if let underlying {
            if let databaseError = underlying as? DatabaseError {
                text += " (SQLite error \(databaseError.extendedResultCode.rawValue): \(databaseError.message ?? "\(databaseError.resultCode)"))"
            } else {
                text += " (\(underlying))"
            }
        }
        return text
    }

    /// Wraps `error`, classifying SQLite result codes. A `SwiduxDatabaseError` is returned unchanged.
    static func wrapping(_ error: any Error, path: String?) -> SwiduxDatabaseError {
        if let error = error as? SwiduxDatabaseError {
            return error.path == nil ? SwiduxDatabaseError(path: path, cause: error.cause, underlying: error.underlying) : error
        }
        guard let databaseError = error as? DatabaseError else {
            return SwiduxDatabaseError(path: path, cause: .other, underlying: error)
        }
        let cause: Cause
        switch databaseError.resultCode {
        case .SQLITE_NOTADB: cause = .notADatabase
        case .SQLITE_CORRUPT: cause = .corrupt
        case .SQLITE_READONLY: cause = .readOnly
        case .SQLITE_BUSY, .SQLITE_LOCKED: cause = .locked
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: cause = .cannotOpen
        case .SQLITE_CONSTRAINT: cause = .constraintViolation
        default: cause = .sqlite(code: databaseError.resultCode.rawValue)
        }
        return SwiduxDatabaseError(path: path, cause: cause, underlying: databaseError)
    }
}
