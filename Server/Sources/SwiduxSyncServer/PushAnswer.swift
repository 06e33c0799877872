import NIOCore
import SwiduxSyncWire

/// What ``Push/apply(_:space:database:logger:)`` answers: the ``SwiduxSyncWire/PushResponse``
/// as its parts, written as JSON by ``body(scope:)`` with each change's id and columns
/// copied in as they were stored (no `SyncResult` values, no `JSONEncoder`); the columns
/// only when the request asked for them (``SwiduxSyncWire/PushRequest/resultColumns``).
struct PushAnswer {
    /// The outcome of one change.
    struct Result {
        /// The change (its table, id and columns are the row's).
        let change: Push.Prepared
        let applied: Bool
        /// The row's version after the change.
        let version: Int64
        /// Whether the row is a tombstone after the change.
        let deleted: Bool
        /// The row's columns after an update merged into it (``ColumnMerge``); `nil`: the change's.
        var merged: String? = nil
        /// Whether the answer carries the row's columns even when the request asked for none:
        /// an update merged into a row that changed since its base, whose other columns the
        /// client has not seen; a change a rule refused or rewrote (the device takes the row).
        var echo = false
        /// Why a rule refused the change (``SwiduxSyncWire/SyncResult/reason``).
        var reason: String? = nil

        var table: String { change.table }
        /// The id's wire JSON.
        var idJSON: String { change.idJSON }
        /// The columns' wire JSON, for a live row.
        var columnsJSON: String? { deleted ? nil : merged ?? change.columnsJSON }
    }

    /// ``SwiduxSyncWire/PushResponse/lastMutationID``.
    let lastMutationID: Int64
    /// ``SwiduxSyncWire/PushResponse/results``, in order.
    let results: [Result]
    /// ``SwiduxSyncWire/PushResponse/acknowledged``.
    let acknowledged: [Int64]
    /// Whether the results carry the rows' columns (``SwiduxSyncWire/PushRequest/resultColumns``).
    let resultColumns: Bool
    /// ``SwiduxSyncWire/PushResponse/conflicts``: the space's last conflict id.
    var conflicts: Int64 = 0

    /// The ``SwiduxSyncWire/PushResponse`` JSON, with its scope.
    func body(scope: String) -> ByteBuffer {
        let size = results.reduce(128) {
            $0 + 2 * ($1.table.utf8.count + $1.idJSON.utf8.count) + (resultColumns || $1.echo ? $1.columnsJSON?.utf8.count ?? 0 : 0)
                + ($1.reason?.utf8.count ?? 0) + 120
        }
        var json = WireWriter<ByteBuffer>(capacity: size + 20 * acknowledged.count + scope.utf8.count)
        json.raw("{\"lastMutationID\":")
        json.integer(lastMutationID)
        json.raw(",\"results\":[")
        for (index, result) in results.enumerated() {
            json.raw(index == 0 ? "{\"table\":" : ",{\"table\":")
            json.string(result.table)
            json.raw(",\"id\":")
            json.rawJSON(result.idJSON)
            json.raw(result.applied ? ",\"applied\":true,\"current\":{\"table\":" : ",\"applied\":false,\"current\":{\"table\":")
            json.string(result.table)
            json.raw(",\"id\":")
            json.rawJSON(result.idJSON)
            json.raw(",\"version\":")
            json.integer(result.version)
            json.raw(result.deleted ? ",\"deleted\":true" : ",\"deleted\":false")
            if resultColumns || result.echo, !result.deleted, let columns = result.columnsJSON {
                json.raw(",\"columns\":")
                json.rawJSON(columns)
            }
            json.raw("}")
            if let reason = result.reason {
                // Under the extension member: a client older than reasons skips it.
                json.raw(",\"ext\":{\"reason\":")
                json.string(reason)
                json.raw("}")
            }
            json.raw("}")
        }
        json.raw("],\"acknowledged\":[")
        for (index, id) in acknowledged.enumerated() {
            if index > 0 { json.raw(",") }
            json.integer(id)
        }
        json.raw("],\"conflicts\":")
        json.integer(conflicts)
        json.raw(",\"scope\":")
        json.string(scope)
        json.raw("}")
        return json.output
    }
}
