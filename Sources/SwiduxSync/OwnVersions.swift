import SwiduxSyncWire

/// Versions of the space that only this client's pushes wrote and that its pulls have not
/// passed yet (a first push must not download the rows it just pushed).
///
/// The server gives versions per space in commit order, under a lock held by the push's
/// transaction: every version of the space from the lowest to the highest that a push
/// request wrote is that request's own (``PushAnswer/ownVersions``). Other clients' rows
/// committed before it have lower versions, those committed after it higher ones; both are
/// still pulled. A pull whose page reaches such a range (a row at or past its lowest
/// version: every version before it was seen) skips the rest of it: the cursor jumps to its
/// highest version. Before a range, a first one-row pull tells whether anything else lies
/// in between.
struct OwnVersions: Sendable {
    private struct Entry: Sendable {
        var range: ClosedRange<Int64>
        var probed = false
    }

    private var entries: [Entry] = []

    var ranges: [ClosedRange<Int64>] { entries.map(\.range) }

    /// Notes the versions of an acknowledged push request.
    mutating func note(_ range: ClosedRange<Int64>) {
        if let last = entries.last, last.range.upperBound + 1 == range.lowerBound {
            // Contiguous with the previous request's: no other version lies between.
            entries[entries.count - 1].range = last.range.lowerBound...range.upperBound
        } else {
            entries.append(Entry(range: range))
            entries.sort { $0.range.lowerBound < $1.range.lowerBound }
        }
    }

    /// Before a pull from `cursor`: `true` when it should ask for one row only (an own range
    /// lies ahead and was not probed yet).
    mutating func probe(after cursor: Int64) -> Bool {
        entries.removeAll { $0.range.upperBound <= cursor }
        guard let first = entries.first, !first.probed, first.range.lowerBound > cursor else { return false }
        entries[0].probed = true
        return true
    }

    /// The cursor to store after `page`: past every own range the page reached. A last page
    /// (nothing more on the server) forgets every range.
    mutating func cursor(after page: PullResponse) -> Int64 {
        var next = page.cursor
        while let first = entries.first, first.range.lowerBound <= next {
            next = max(next, first.range.upperBound)
            entries.removeFirst()
        }
        if !page.hasMore { entries.removeAll() }
        return next
    }

    mutating func removeAll() { entries.removeAll() }
}
