import ArgumentParser
import Foundation
import GRDB
import SwiduxSync
import SwiduxSyncWire

extension TodosCommand {
    /// `todos share LIST --with USER [--read-only]`: shares a list with another user of the
    /// sync server (a JWT user: the token's subject).
    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Share a list with another user of the sync server (they can edit it, or only read it with --read-only).",
            discussion: """
                The list and its items move into a sync space of their own, owned by you (the first \
                time), and USER becomes a member; every device of theirs then syncs the list. Tags stay \
                yours. Needs a sync server that accepts your sign-in token (a JWT); run again to change \
                USER's role. Only an owner of a shared list can share it further.
                """)
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        @OptionGroup var sync: SyncOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Argument(help: "The list's name.") var list: String
        @Option(name: .customLong("with"), help: "The user to share it with (their sign-in name: the token's subject).") var user: String
        @Flag(help: "They may read the list, not change it.") var readOnly = false

        func run() async throws {
            let user = user.trimmingCharacters(in: .whitespaces)
            guard !user.isEmpty else { throw TodosError("no user: pass --with <user>") }
            let role: SyncSpace.Role = readOnly ? .reader : .writer
            try await SharedList.run(list, parent: parent, options: options, sync: sync) { database, spaces, shared in
                // The user's own name (their personal space is named after it): refused before the
                // list moves into a space of its own, which the server would then refuse to share.
                if try await spaces.refresh().contains(where: { $0.isPersonal && $0.name == SyncProtocol.personalSpacePrefix + user }) {
                    throw TodosError("“\(shared.name)” is yours already: share it with another user")
                }
                var space = shared.space
                if space == nil {
                    // A space per list, named after the list's id: unique, and the same on every device.
                    let name = "list-" + shared.id.uuidString.lowercased()
                    try await spaces.createSpace(name)
                    try database.moveList(shared.id, to: name)
                    space = name
                }
                guard let space else { return }
                do {
                    try await spaces.addMember(user, role: role, to: space)
                } catch SyncError.rejected(status: 403, let message) {
                    throw TodosError("cannot share “\(shared.name)”: only an owner of a shared list can share it (\(message))")
                }
                let report = try await spaces.sync()
                print("shared “\(shared.name)” with \(user)" + (readOnly ? " (read-only)" : " (can edit)"))
                if report.pending > 0 {
                    throw TodosError("\(report.pending) local change\(report.pending == 1 ? " is" : "s are") not acknowledged yet; run `todos sync` again")
                }
            }
        }
    }

    /// `todos unshare LIST --with USER`: ends another user's access to a shared list.
    struct Unshare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop sharing a list with a user: their devices sync it no more and keep what they had, read-only.")
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        @OptionGroup var sync: SyncOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Argument(help: "The list's name.") var list: String
        @Option(name: .customLong("with"), help: "The user who is to lose access.") var user: String

        func run() async throws {
            let user = user.trimmingCharacters(in: .whitespaces)
            try await SharedList.run(list, parent: parent, options: options, sync: sync) { _, spaces, shared in
                guard let space = shared.space else { throw TodosError("“\(shared.name)” is not shared") }
                do {
                    try await spaces.removeMember(user, from: space)
                } catch SyncError.rejected(status: 404, _) {
                    throw TodosError("“\(shared.name)” is not shared with \(user)")
                } catch SyncError.rejected(status: 403, let message) {
                    throw TodosError("cannot unshare “\(shared.name)”: only an owner of a shared list can (\(message))")
                }
                print("“\(shared.name)” is no longer shared with \(user)")
            }
        }
    }
}

/// What `todos share` and `todos unshare` do first: the list by name, the sync of the user's
/// spaces, errors as sentences.
enum SharedList {
    static func run(_ name: String, parent: TodosCommand, options: DatabaseOptions, sync: SyncOptions,
                    _ body: (AppDatabase, SyncSpaces, (id: UUID, name: String, space: String?)) async throws -> Void) async throws {
        guard let (url, token) = try sync.resolved(parent: parent.sync) else {
            throw TodosError("no sync server: sharing needs one; pass --sync <url> or set TODOS_SYNC_URL")
        }
        let trusted = try sync.trustedCertificates(parent: parent.sync)
        let path = DatabaseLocation.resolve(option: options.db ?? parent.options.db)
        let database: AppDatabase
        do {
            database = try AppDatabase.open(path: path, access: .existing)
        } catch {
            throw TodosError(ErrorMessage.describe(error, path: path))
        }
        defer { try? database.close() }
        do {
            guard let list = try database.list(named: name) else { throw TodosError("there is no list named “\(name)”") }
            try await body(database, try database.syncSpaces(url: url, token: token, trusted: trusted), list)
        } catch let error as TodosError {
            throw error
        } catch let error as SyncError {
            throw TodosError(error.description)
        } catch {
            throw TodosError(ErrorMessage.describe(error, path: path))
        }
    }
}

extension AppDatabase {
    /// The list named `name` (compared by ``ListName/key(_:)``): its id, name and sync space.
    func list(named name: String) throws -> (id: UUID, name: String, space: String?)? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT id, name, space FROM todoList WHERE nameKey = ?", arguments: [ListName.key(name)])
                .map { (try $0.decode(UUID.self, forColumn: "id"), $0["name"], $0["space"]) }
        }
    }

    /// Moves a list and its items into the sync space `space`, in one transaction.
    func moveList(_ id: UUID, to space: String) throws {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE todoList SET space = ? WHERE id = ?", arguments: [space, id])
            try db.execute(sql: "UPDATE todoItem SET space = ? WHERE listID = ?", arguments: [space, id])
        }
    }

    /// Why the list `id` cannot be changed on this device, or nil when it can: it is shared
    /// with the user read-only, or they are no longer a member of its space (what they had
    /// stays, read-only).
    func readOnlyReason(list id: UUID) throws -> String? {
        guard let (name, space) = try database.writer.read({ db in
            try Row.fetchOne(db, sql: "SELECT name, space FROM todoList WHERE id = ?", arguments: [id]).map { ($0["name"] as String, $0["space"] as String?) }
        }), let space else { return nil }
        guard let recorded = try SyncSpaces.spaces(in: database).first(where: { $0.name == space }) else { return nil }
        switch recorded.role {
        case nil: return "“\(name)” is no longer shared with you: it stays on this device, read-only"
        case .reader?: return "“\(name)” is shared with you read-only"
        default: return nil
        }
    }

    /// The shared lists: each list's id with whether the user may change it (a reader, or no
    /// longer a member, may not).
    func sharedLists() throws -> [UUID: Bool] {
        let roles = Dictionary(try SyncSpaces.spaces(in: database).map { ($0.name, $0.isWritable) }, uniquingKeysWith: { first, _ in first })
        return try database.writer.read { db in
            var shared: [UUID: Bool] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, space FROM todoList WHERE space IS NOT NULL") {
                let space: String = row["space"]
                // A space not recorded yet is one this device made or was just given: writable.
                shared[try row.decode(UUID.self, forColumn: "id")] = roles[space] ?? true
            }
            return shared
        }
    }
}
