import ArgumentParser
import Foundation
import SwiduxSync
import SwiduxSyncWire

extension TodosCommand {
    /// `todos conflicts [--json] [--dismiss]`: this device's values that another device's
    /// later push replaced, kept until dismissed.
    struct Conflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List this device's edits that another device's later edit of the same field replaced.",
            discussion: """
                Two devices that change the same field of an item while apart: the one that syncs \
                later wins, and the earlier value is listed here, on the device that wrote it, \
                until dismissed. To take a value back, edit the item again (it syncs as usual). \
                Two devices that each made a list of one name: the later list is renamed ("Shopping (2)") \
                and listed here too, and so are edits the server refused (with its reason; the item went back \
                to the server's). \
                Reads only the local database (no server needed).
                """)
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Flag(help: "Print a JSON array of {table, id, column, kept, replaced, at} (and \"kind\": \"renamed\" for a renamed list, \"kind\": \"refused\" with its \"reason\" for an edit the server refused).") var json = false
        @Flag(help: "Forget the conflicts listed.") var dismiss = false

        func run() async throws {
            let path = databasePath
            let database: AppDatabase
            do {
                database = try AppDatabase.open(path: path, access: dismiss ? .existing : .readOnly)
            } catch {
                throw TodosError(ErrorMessage.describe(error, path: path))
            }
            defer { try? database.close() }
            let conflicts: [SyncConflict]
            do {
                conflicts = try SyncClient.conflicts(in: database.database)
                if dismiss { try SyncClient.dismiss(conflicts, in: database.database) }
            } catch {
                throw TodosError(ErrorMessage.describe(error, path: path))
            }
            if json {
                print(Self.json(conflicts))
            } else {
                for conflict in conflicts { print(Self.line(conflict)) }
                if dismiss, !conflicts.isEmpty { print("dismissed \(conflicts.count)") }
            }
        }

        /// "item 1f0c… title: kept "call mum on Sunday", replaced "call mum at 6" (2026-…)", or
        /// "list "Shopping" renamed to "Shopping (2)": another device made one with that name (2026-…)".
        static func line(_ conflict: SyncConflict) -> String {
            let table = conflict.table == TodoItem.databaseTableName ? "item" : conflict.table == TodoList.databaseTableName ? "list" : conflict.table
            if conflict.kind == .refused {
                return "\(table) \(text(conflict.id)) refused: \(conflict.reason ?? "no reason given")"
                    + " (\(ISO8601DateFormatter().string(from: conflict.at)))"
            }
            if conflict.kind == .renamed {
                return "\(table) \(shown(conflict.replaced)) renamed to \(shown(conflict.kept)): another device made one with that \(conflict.column)"
                    + " (\(ISO8601DateFormatter().string(from: conflict.at)))"
            }
            return "\(table) \(text(conflict.id)) \(conflict.column): kept \(shown(conflict.kept)), replaced \(shown(conflict.replaced))"
                + " (\(ISO8601DateFormatter().string(from: conflict.at)))"
        }

        /// What `todos sync` prints for new conflicts: "1 refused: …" for the edits the server
        /// refused, "1 conflict: …" for the others, and one line each.
        static func summary(_ conflicts: [SyncConflict]) -> String {
            let refused = conflicts.filter { $0.kind == .refused }, others = conflicts.filter { $0.kind != .refused }
            var parts: [String] = []
            if !refused.isEmpty { parts.append("\(refused.count) refused: " + refused.map(line).joined(separator: "\n  ")) }
            if !others.isEmpty {
                parts.append("\(others.count) conflict\(others.count == 1 ? "" : "s"): " + others.map(line).joined(separator: "\n  "))
            }
            return parts.joined(separator: "\n") + "\n(`todos conflicts` lists them; edit an item to take a value back)"
        }

        /// The array of `{table, id, column, kept, replaced, at}` objects, keys sorted, with
        /// `"kind": "renamed"` for a rename, `"kind": "refused"` and `"reason"` for a refusal.
        static func json(_ conflicts: [SyncConflict]) -> String {
            struct Entry: Encodable {
                var at: String, column: String, id: String, kept: Value, replaced: Value, table: String
                /// "renamed" for a rename, "refused" for a refusal (absent for a replaced value).
                var kind: String?
                /// Why the server refused the edit (a refusal only).
                var reason: String?
            }
            let entries = conflicts.map {
                Entry(at: ISO8601DateFormatter().string(from: $0.at), column: $0.column, id: text($0.id), kept: Value($0.kept),
                      replaced: Value($0.replaced), table: $0.table, kind: $0.kind == .replaced ? nil : $0.kind.rawValue,
                      reason: $0.reason)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(entries)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        }

        /// A value as JSON: text, numbers and null as they are, an id (16 bytes) as its UUID.
        struct Value: Encodable {
            let value: SyncValue
            init(_ value: SyncValue) { self.value = value }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch value {
                case .null: try container.encodeNil()
                case .integer(let integer): try container.encode(integer)
                case .real(let real): try container.encode(real)
                case .text(let text): try container.encode(text)
                case .blob: try container.encode(ConflictsCommandText.text(value))
                }
            }
        }

        static func text(_ value: SyncValue) -> String { ConflictsCommandText.text(value) }

        static func shown(_ value: SyncValue) -> String {
            if case .text(let text) = value { return "\"" + text.map { $0.isASCII && ($0.asciiValue ?? 0) < 0x20 ? " " : String($0) }.joined() + "\"" }
            return text(value)
        }
    }
}

/// The text of an id or a value: a 16-byte blob as a UUID (as `todos` prints ids).
enum ConflictsCommandText {
    static func text(_ value: SyncValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .text(let text): text
        case .blob(let data):
            data.count == 16 ? UUID(uuid: data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString.lowercased() : data.base64EncodedString()
        }
    }
}
