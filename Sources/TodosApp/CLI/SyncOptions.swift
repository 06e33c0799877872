import ArgumentParser
import Foundation
import GRDB
import SwiduxSync

/// `--sync <url>`, `--sync-token <token>` and `--sync-ca-file <file>` (else `TODOS_SYNC_URL`,
/// `TODOS_SYNC_TOKEN`, `TODOS_SYNC_CA_FILE`).
struct SyncOptions: ParsableArguments {
    @Option(name: .customLong("sync"), help: ArgumentHelp("The sync server's URL, e.g. http://127.0.0.1:8080 (default: $TODOS_SYNC_URL). The UI then syncs continuously.", valueName: "url"))
    var url: String?

    @Option(name: .customLong("sync-token"), help: ArgumentHelp("The sync token of your space (default: $TODOS_SYNC_TOKEN); `swidux-sync-server token create` makes one.", valueName: "token"))
    var token: String?

    @Option(name: .customLong("sync-ca-file"), help: ArgumentHelp("A PEM file of certificate authorities to trust for an https:// sync server besides the system's, e.g. a private CA (default: $TODOS_SYNC_CA_FILE).", valueName: "file"))
    var caFile: String?

    init() {}

    /// The certificate authorities of `--sync-ca-file` (else `TODOS_SYNC_CA_FILE`); nil when
    /// neither names a file. A file that cannot be read or holds no certificate is an error.
    func trustedCertificates(parent: SyncOptions? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SyncTrustedCertificates? {
        guard let path = nonEmpty(caFile) ?? nonEmpty(parent?.caFile) ?? nonEmpty(environment["TODOS_SYNC_CA_FILE"]) else { return nil }
        do {
            return try SyncTrustedCertificates(contentsOf: URL(fileURLWithPath: DatabaseLocation.expand(path)))
        } catch {
            throw TodosError("\(error)")
        }
    }

    /// The server and token, from the options or the environment; `nil` when neither
    /// names a server. A server without a token, or an invalid URL, is an error.
    func resolved(parent: SyncOptions? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (url: URL, token: String)? {
        let rawURL = nonEmpty(url) ?? nonEmpty(parent?.url) ?? nonEmpty(environment["TODOS_SYNC_URL"])
        let token = nonEmpty(token) ?? nonEmpty(parent?.token) ?? nonEmpty(environment["TODOS_SYNC_TOKEN"])
        guard let rawURL else {
            if token != nil { throw TodosError("a sync token was given but no sync server: pass --sync <url> or set TODOS_SYNC_URL") }
            return nil
        }
        guard let url = URL(string: rawURL), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw TodosError("the sync server URL \(rawURL) is not an http:// or https:// URL")
        }
        guard let token else {
            throw TodosError("no sync token: pass --sync-token <token> or set TODOS_SYNC_TOKEN")
        }
        return (url, token)
    }

    private func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}

extension AppDatabase {
    /// The tables `todos` syncs.
    /// Lists and their items name their space (a shared list's); tags and their links stay
    /// in the user's personal space.
    static let syncTables: [SyncTable] = [.table(lists, spaceColumn: "space"), .table(tags), .table(items, spaceColumn: "space"), .table(itemTags)]

    /// The items whose change the sync client set aside as too large to send (their id as
    /// `todos` prints it, and their title).
    func setAsideItems() throws -> [(id: String, title: String)] {
        try database.writer.read { db in
            guard try db.tableExists("swidux_sync_set_aside") else { return [] }
            return try Row.fetchAll(db, sql: """
                SELECT i.id, i.title FROM swidux_sync_set_aside s JOIN \(TodoItem.databaseTableName) i ON i.id = s.rid
                WHERE s.tbl = ? ORDER BY i.id
                """, arguments: [TodoItem.databaseTableName]).map { row in
                let data: Data = row[0]
                let id = data.count == 16 ? UUID(uuid: data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString.lowercased() : data.base64EncodedString()
                return (id, row[1])
            }
        }
    }

    /// A sync client for this database, trusting `trusted` besides the system's CAs.
    func syncClient(url: URL, token: String, trusted: SyncTrustedCertificates? = nil) throws -> SyncClient {
        let client = try SyncClient(database: database, server: url, token: token, tables: Self.syncTables, trustedCertificates: trusted)
        client.setUniqueRenamer(for: TodoList.databaseTableName, Self.renameList)
        return client
    }

    /// The sync of every space of the token's user (the personal one and each shared list's),
    /// trusting `trusted` besides the system's CAs.
    func syncSpaces(url: URL, token: String, trusted: SyncTrustedCertificates? = nil) throws -> SyncSpaces {
        let spaces = try SyncSpaces(database: database, server: url, token: token, tables: Self.syncTables, trustedCertificates: trusted)
        spaces.setUniqueRenamer(for: TodoList.databaseTableName, Self.renameList)
        return spaces
    }

    /// Two devices that each made a list of one name offline: the later list becomes
    /// "Shopping (2)" (the name shown, and its unique key with it), the same on every device.
    static func renameList(_ clash: SyncUniqueClash) -> SyncUniqueClash.Rename? {
        guard case .text(let name)? = clash.columns["name"] else { return nil }
        let renamed = "\(name) (\(clash.number))"
        return SyncUniqueClash.Rename(column: "name", value: .text(renamed), also: ["nameKey": .text(ListName.key(renamed))])
    }
}

extension TodosCommand {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync with the server once: push every local change, pull every new one.",
            discussion: """
                Exits 0 only when the server acknowledged every local change. A change too large \
                for the server is named and set aside (the rest syncs; exit non-zero). A refused token \
                or an unreachable server exits non-zero and says which; nothing local is lost \
                (the changes stay queued for the next sync). Creates the database if there is none.
                """)
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        @OptionGroup var sync: SyncOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }

        func run() async throws {
            guard let (url, token) = try sync.resolved(parent: parent.sync) else {
                throw TodosError("no sync server: pass --sync <url> or set TODOS_SYNC_URL")
            }
            let trusted = try sync.trustedCertificates(parent: parent.sync)
            let path = databasePath
            let database: AppDatabase
            do {
                database = try AppDatabase.open(path: path, access: .create)
            } catch {
                throw TodosError(ErrorMessage.describe(error, path: path))
            }
            defer { try? database.close() }
            let report: SyncReport
            do {
                report = try await database.syncSpaces(url: url, token: token, trusted: trusted).sync()
            } catch let error as SyncError {
                throw TodosError(error.description)
            } catch {
                throw TodosError(ErrorMessage.describe(error, path: path))
            }
            // The counts are of rows (an item with a new tag is three: the item, the tag, the
            // link), so the line says so rather than suggest items.
            print("synced: pushed \(report.pushed) row change\(report.pushed == 1 ? "" : "s"), pulled \(report.pulled) (rows of items, lists, tags and tag links)"
                  + (report.refused > report.refusals.count ? ", \(report.refused - report.refusals.count) refused (deleted elsewhere)" : "")
                  + (report.parked > 0 ? ", \(report.parked) waiting for their list or item" : ""))
            if !report.conflicts.isEmpty { print(Conflicts.summary(report.conflicts)) }
            if report.reidentified {
                print("this database file was copied or restored from a backup: it now syncs under a new client id (nothing was lost)")
            }
            if report.rebased {
                print("the server's space or database changed: synced as for the first time (pushed every row, pulled everything)")
            }
            if !report.setAside.isEmpty {
                let named = (try? database.setAsideItems()) ?? []
                var lines = named.map { "item \($0.id) \"\($0.title.prefix(40))…\" was not synced: too large for the sync server (16 MiB at most); it stays in this file, shorten it to sync it" }
                if named.count < report.setAside.count {
                    lines += report.setAside.filter { $0.table != TodoItem.databaseTableName }.map { "\($0) was not synced: too large for the sync server" }
                }
                throw TodosError(lines.joined(separator: "\n"))
            }
            if report.pending > 0 {
                throw TodosError("\(report.pending) local change\(report.pending == 1 ? " is" : "s are") not acknowledged yet; run `todos sync` again")
            }
        }
    }
}
