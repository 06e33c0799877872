import Foundation
import SwiduxSyncWire

/// The part of a ``PushResponse`` the client uses: the acknowledged mutations and, per
/// result, the row's key, whether it was applied, and its version (a refused row's state is
/// its tombstone). Decoding it skips the columns the server echoes back (a first
/// push's answers carry every pushed row).
struct PushAnswer: Decodable, Equatable {
    struct Current: Decodable, Equatable {
        var version: Int64
        var deleted: Bool
        /// The row's columns, when the server sent them although the request asked for none:
        /// an update it merged into a row that changed since the update's base.
        var columns: [String: SyncValue]? = nil
    }

    struct Result: Decodable, Equatable {
        var table: String
        var id: SyncValue
        var applied: Bool
        var current: Current
        /// Why a rule of the server refused the change (``SyncResult/reason``).
        var reason: String? = nil
    }

    var lastMutationID: Int64
    var results: [Result]
    var acknowledged: [Int64]?
    var scope: String?
    /// ``PushResponse/conflicts``: the space's last conflict id, from a server that merges
    /// updates by column.
    var conflicts: Int64?

    init(_ response: PushResponse) {
        lastMutationID = response.lastMutationID
        results = response.results.map {
            Result(table: $0.table, id: $0.id, applied: $0.applied,
                   current: Current(version: $0.current.version, deleted: $0.current.deleted, columns: $0.current.columns),
                   reason: $0.reason)
        }
        acknowledged = response.acknowledged
        scope = response.scope
        conflicts = response.conflicts
    }

    /// The versions this answer's request gave to live rows it wrote, when the server says
    /// which mutations it acknowledged: in a space, the server assigns versions in commit
    /// order under a lock, so every version of the space from the lowest to the highest is
    /// this request's own. `nil` when there is none.
    var ownVersions: ClosedRange<Int64>? {
        guard acknowledged != nil else { return nil }
        var lowest = Int64.max, highest = Int64.min
        for result in results where result.applied && !result.current.deleted {
            lowest = min(lowest, result.current.version)
            highest = max(highest, result.current.version)
        }
        return lowest <= highest ? lowest...highest : nil
    }
}
