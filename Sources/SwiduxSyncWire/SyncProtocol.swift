/// The HTTP surface and its limits, shared by the client and the server.
///
/// ```swift
/// var request = URLRequest(url: server.appending(path: SyncProtocol.pushPath))
/// request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
/// ```
public enum SyncProtocol {
    /// `POST`: body ``PushRequest``, answer ``PushResponse``.
    public static let pushPath = "v1/push"
    /// `GET` with query `after`, `limit`, `wait`: answer ``PullResponse``.
    public static let pullPath = "v1/pull"
    /// `PUT`: body ``TablesRequest``, answer 204.
    public static let tablesPath = "v1/tables"
    /// `GET` with query `client`, `after`, `limit`: answer ``ConflictsResponse`` — the values
    /// a later push replaced without having seen them, which that client wrote.
    public static let conflictsPath = "v1/conflicts"
    /// The largest request body the server reads: 16 MiB; a larger one is answered 413.
    public static let maxBodyBytes = 16 * 1024 * 1024
    /// The most rows one pull answers (a larger `limit` is cut to it).
    public static let maxPullLimit = 10_000
    /// The longest a pull waits for a change (`wait`, seconds).
    public static let maxWaitSeconds = 60

    /// `true` for a valid table name: 1 to 63 ASCII letters, digits and `_`, not starting
    /// with a digit, and not starting with `swidux_` (the library's own tables).
    ///
    /// ```swift
    /// SyncProtocol.isValidTableName("todo")   // true
    /// ```
    public static func isValidTableName(_ name: String) -> Bool {
        guard (1...63).contains(name.utf8.count), !name.lowercased().hasPrefix("swidux_") else { return false }
        return name.utf8.enumerated().allSatisfy { index, byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"): true
            case UInt8(ascii: "0")...UInt8(ascii: "9"): index > 0
            default: false
            }
        }
    }
}
