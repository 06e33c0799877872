import Foundation
import GRDB
import SwiduxSQLite

/// Turns any error met while using a database into one sentence naming the file and the
/// cause — never a dump of an error's fields.
enum ErrorMessage {
    /// "no database at /x/todos.sqlite", "cannot use the database at /x/todos.sqlite: the
    /// database file or its directory is read-only", …
    static func describe(_ error: any Error, path: String) -> String {
        switch error {
        case let error as TodosError:
            return error.description
        case let error as SwiduxDatabaseError:
            let path = error.path ?? path
            if error.cause == .noDatabase { return "no database at \(path)" }
            if case .needsMigration = error.cause {
                // Read-only commands never migrate; say what the file is and what sets it up.
                let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
                if size == 0 {
                    return "the database at \(path) is an empty file (0 bytes), not a todos database yet: `todos add` sets it up (read-only commands never write)"
                }
                return "the database at \(path) was made by an older todos: open it once with `todos` or `todos add` to update it (read-only commands never write)"
            }
            if error.cause == .fileReplaced {
                return "the database file was deleted or replaced: \(path) (changes kept; put the file back to save them)"
            }
            return "cannot use the database at \(path): \(error.cause)" + detail(error.underlying)
        case let error as PersistenceWriteFailure:
            return "saving to " + describe(error.underlying, path: path).replacingOccurrences(of: "cannot use the database at ", with: "the database at ")
        case let error as DatabaseError:
            return "cannot use the database at \(path): SQLite: \(error.message ?? "error \(error.extendedResultCode.rawValue)")"
        default:
            return "cannot use the database at \(path)" + detail(error)
        }
    }

    /// " (SQLite: message)", " (permission denied)" or "".
    private static func detail(_ error: (any Error)?) -> String {
        switch error {
        case let error as DatabaseError:
            return " (SQLite: \(error.message ?? "error \(error.extendedResultCode.rawValue)"))"
        case let error as TodosError:
            return " (\(error.description))"
        case let error as CustomStringConvertible where !(error is NSError):
            let text = error.description
            return text.contains("\n") || text.count > 200 ? "" : " (\(text))"
        case let error?:
            let nsError = error as NSError
            if let posix = (nsError.userInfo[NSUnderlyingErrorKey] as? NSError), posix.domain == NSPOSIXErrorDomain {
                return " (\(String(cString: strerror(Int32(posix.code)))))"
            }
            return nsError.domain == NSPOSIXErrorDomain ? " (\(String(cString: strerror(Int32(nsError.code)))))" : ""
        case nil:
            return ""
        }
    }
}
