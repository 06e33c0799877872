import GRDB

// What PersistingWithSQLite.md's fragments assume besides the types it declares: a reducer,
// an environment, a path, the database, and the record conformance of its last section.
enum AppAction: Sendable {
    case refresh
}

struct AppEnvironment: Sendable {
    static let live = AppEnvironment()
}

struct AppReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: AppAction, environment: AppEnvironment) -> Effect<AppAction>? {
        nil
    }
}

extension SwiduxMigrations {
    static var app: SwiduxMigrations { AppDatabase.migrations }
}

/// "Relate entities with real columns": the to-do as a GRDB record.
extension Todo: FetchableRecord, PersistableRecord {}

/// "Open the database at launch": what the app shows while it opens the file.
enum Launch {
    case opening
    case ready(Store<AppState, AppAction>)
    case failed(String)
}

@MainActor
final class SnippetContext {
    let path: String
    let database: SwiduxDatabase
    var launch = Launch.opening
    init(path: String, database: SwiduxDatabase) {
        self.path = path
        self.database = database
    }
}
