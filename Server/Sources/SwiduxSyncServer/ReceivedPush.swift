import SwiduxSyncWire

/// A push request as the server applies it: a ``SwiduxSyncWire/PushRequest`` whose rows'
/// columns are already the JSON the server stores (members sorted by name, values in their
/// wire form, as ``WireJSON`` writes them). ``PushBody`` reads them so from the
/// body, without a dictionary and a ``SwiduxSyncWire/SyncValue`` per column (decoding the
/// columns and encoding them again was about a third of the server's CPU in a
/// large push, by perf: 15 % the encoding, much of the 20 % of reading the body).
///
/// ```swift
/// let received = try PushBody.decode(buffer) ?? ReceivedPush(JSONDecoder().decode(PushRequest.self, from: data))
/// ```
struct ReceivedPush: Hashable, Sendable {
    /// A ``SwiduxSyncWire/SyncChange`` with its columns as stored JSON.
    struct Change: Hashable, Sendable {
        var table: String
        var id: SyncValue
        var kind: SyncChange.Kind
        /// The columns' stored JSON; `nil` when the change has none (a delete).
        var columnsJSON: String?
        var baseVersion: Int64?
    }

    /// A ``SwiduxSyncWire/SyncMutation`` of received changes.
    struct Mutation: Hashable, Sendable {
        var id: Int64
        var changes: [Change]
    }

    var clientID: String
    var mutations: [Mutation]
    var scope: String?
    /// ``SwiduxSyncWire/PushRequest/resultColumns``: `false` when the answer leaves out the
    /// rows' columns.
    var resultColumns: Bool

    init(clientID: String, mutations: [Mutation], scope: String?, resultColumns: Bool = true) {
        self.clientID = clientID
        self.mutations = mutations
        self.scope = scope
        self.resultColumns = resultColumns
    }

    /// `request` (decoded by `JSONDecoder`), its columns encoded as stored: by `columns`
    /// (given the mutation's and the change's places) when it answers them, else from the
    /// decoded dictionary.
    ///
    /// - Throws: a 400 ``RequestFailure`` naming the row whose columns cannot be
    ///   stored (a real that is not finite), a 413 one naming a column name longer than
    ///   ``SwiduxSyncWire/SyncProtocol/maxKeyBytes``.
    init(_ request: PushRequest, columns: (_ mutation: Int, _ change: Int) throws -> String? = { _, _ in nil }) throws {
        self.init(clientID: request.clientID, mutations: try request.mutations.enumerated().map { mutationIndex, mutation in
            Mutation(id: mutation.id, changes: try mutation.changes.enumerated().map { changeIndex, change in
                var columnsJSON: String?
                if let decoded = change.columns {
                    if let name = decoded.keys.first(where: { $0.utf8.count > SyncProtocol.maxKeyBytes }) {
                        throw Self.longName(name, of: change.table, id: change.id)
                    }
                    do { columnsJSON = try columns(mutationIndex, changeIndex) ?? WireJSON.text(decoded) } catch let failure as RequestFailure {
                        throw failure
                    } catch {
                        throw RequestFailure.badRequest("cannot store the columns of \(change.table) \(change.id.key): \(error)")
                    }
                }
                return Change(table: change.table, id: change.id, kind: change.kind, columnsJSON: columnsJSON,
                              baseVersion: change.baseVersion)
            })
        }, scope: request.scope, resultColumns: request.resultColumns ?? true)
    }

    /// 413 for a column name longer than ``SwiduxSyncWire/SyncProtocol/maxKeyBytes``.
    static func longName(_ name: String, of table: String, id: SyncValue) -> RequestFailure {
        .contentTooLarge("a column name of \(table) \(id.key.prefix(40)) (\(name.prefix(40))…) has \(name.utf8.count) bytes, more than the \(SyncProtocol.maxKeyBytes) a column name may have (SyncProtocol.maxKeyBytes): nothing was applied")
    }
}
