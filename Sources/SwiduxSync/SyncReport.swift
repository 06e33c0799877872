/// What one sync round did.
///
/// ```swift
/// let report = try await client.sync()
/// print("pushed \(report.pushed), pulled \(report.pulled), \(report.pending) still pending")
/// ```
public struct SyncReport: Hashable, Sendable, CustomStringConvertible {
    /// Changes the server acknowledged.
    public var pushed = 0
    /// Pulled rows applied to the local database.
    public var pulled = 0
    /// The bytes of the push requests' bodies sent (retries included).
    public var pushedBytes = 0
    /// Pushed changes the server refused: updates of a row deleted meanwhile (the row was
    /// then deleted locally: delete wins), and changes a rule of the server refused (the row
    /// went back to the server's; each is listed in ``conflicts``, kind `.refused`).
    public var refused = 0
    /// Pulled rows waiting for a row they reference (a parent not pulled yet).
    public var parked = 0
    /// Local changes not acknowledged yet (0 after a successful ``SyncClient/sync()``
    /// unless the app changed something meanwhile).
    public var pending = 0
    /// Local changes too large for the server (over SwiduxSyncWire's `SyncProtocol.maxBodyBytes`,
    /// or an id or a column name over its `SyncProtocol.maxKeyBytes`): kept locally, not
    /// sent, and listed here until the row changes again; everything else syncs.
    public var setAside: [SetAsideChange] = []
    /// `true` when this file's client id was also another file's (the file was copied, or
    /// restored from a backup) and the client took a new one; nothing pending was dropped.
    public var reidentified = false
    /// Conflicts this round learned of (``SyncConflict``): values of this device that another
    /// device's later push replaced, rows it renamed, and its changes a rule of the server
    /// refused, listed until dismissed (``SyncClient/conflicts()``).
    public var conflicts: [SyncConflict] = []

    /// The changes a rule of the server refused this round, with their reasons (the
    /// ``conflicts`` of kind `.refused`).
    ///
    /// ```swift
    /// for refusal in report.refusals { print("\(refusal.table) \(refusal.id.key): \(refusal.reason ?? "")") }
    /// ```
    public var refusals: [SyncConflict] { conflicts.filter { $0.kind == .refused } }
    /// `true` when the server's scope changed (another space's token, a replaced server
    /// database) and the client synced as for the first time (pushed every row, pulled all).
    public var rebased = false

    /// An empty report.
    ///
    /// ```swift
    /// var report = SyncReport()
    /// ```
    public init() {}

    /// Adds `other`'s counts and lists to this report (one round of several spaces).
    ///
    /// ```swift
    /// var total = SyncReport()
    /// total.add(try await family.sync())
    /// ```
    public mutating func add(_ other: SyncReport) {
        pushed += other.pushed
        pulled += other.pulled
        pushedBytes += other.pushedBytes
        refused += other.refused
        parked += other.parked
        pending += other.pending
        // The file's set-aside rows, which every space's round reports.
        setAside += other.setAside.filter { !setAside.contains($0) }
        reidentified = reidentified || other.reidentified
        conflicts += other.conflicts
        rebased = rebased || other.rebased
    }

    /// A one-line summary.
    ///
    /// ```swift
    /// print(report)   // "pushed 3, pulled 5, refused 0, parked 0, pending 0"
    /// ```
    public var description: String {
        "pushed \(pushed), pulled \(pulled), refused \(refused), parked \(parked), pending \(pending)"
            + (conflicts.isEmpty ? "" : ", \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")")
            + (setAside.isEmpty ? "" : ", set aside \(setAside.count) (too large): " + setAside.map(\.description).joined(separator: ", "))
    }
}
