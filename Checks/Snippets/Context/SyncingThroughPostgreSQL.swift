@_exported import SwiduxSync

// What SyncingThroughPostgreSQL.md's fragments assume: a database and its sync client.
struct SnippetContext {
    let database: SwiduxDatabase
    let client: SyncClient
}
