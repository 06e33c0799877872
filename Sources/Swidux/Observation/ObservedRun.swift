/// One run of an `observe` closure, while it runs: what it read from the stores, and whether
/// one of those reads changed before the run ended.
///
/// `withObservationTracking` installs its observers only once the closure has returned: a
/// change made *during* the closure (the closure sends an action, which is reduced at once)
/// notifies nobody, and the value the closure showed is stale with nothing left to re-run
/// it. The stores report their reads and their notifications here while a run is under way,
/// so that the observation loop knows to run the closure again.
@MainActor
final class ObservedRun {
    /// The run under way, if any (the innermost one when runs nest).
    static var current: ObservedRun?

    /// A read: the object that notifies it (a store's tracker, an `MVIStore`) and its key.
    struct Read: Hashable {
        let owner: ObjectIdentifier
        let key: AnyKeyPath
    }

    private var reads: Set<Read> = []
    /// Something this run had read was notified as changed before the run ended.
    private(set) var isStale = false
    private let outer: ObservedRun?

    private init(outer: ObservedRun?) { self.outer = outer }

    /// Starts a run (nested in the current one, if any).
    static func begin() -> ObservedRun {
        let run = ObservedRun(outer: current)
        current = run
        return run
    }

    /// Ends the run; the reads it made count for the run it is nested in, as the accesses of
    /// a nested `withObservationTracking` count for the outer one.
    func end() {
        Self.current = outer
        if let outer {
            outer.reads.formUnion(reads)
            if isStale { outer.isStale = true }
        }
    }

    /// `owner` registered a read of `key` with the current observer.
    @inline(__always)
    static func noteRead(_ owner: AnyObject, _ key: AnyKeyPath) {
        guard let run = current else { return }
        run.reads.insert(Read(owner: ObjectIdentifier(owner), key: key))
    }

    /// `owner` notifies the observers of `key`: a run that read it is stale.
    @inline(__always)
    static func noteChange(_ owner: AnyObject, _ key: AnyKeyPath) {
        guard current != nil else { return }
        changed(Read(owner: ObjectIdentifier(owner), key: key))
    }

    private static func changed(_ read: Read) {
        var run = current
        while let each = run {
            if each.reads.contains(read) { each.isStale = true }
            run = each.outer
        }
    }
}
