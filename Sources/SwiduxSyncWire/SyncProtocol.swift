import Foundation

/// The HTTP surface and its limits, shared by the client and the server.
///
/// ```swift
/// var request = URLRequest(url: server.appending(path: SyncProtocol.pushPath))
/// request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
/// ```
public enum SyncProtocol {
    /// `POST`: body ``PushRequest``, answer ``PushResponse``.
    public static let pushPath = "v1/push"
    /// `GET` with query `after`, `limit`, `wait` (and `space`, ``watchParameter``): answer ``PullResponse``.
    public static let pullPath = "v1/pull"
    /// `PUT`: body ``TablesRequest``, answer 204.
    public static let tablesPath = "v1/tables"
    /// `GET` with query `client`, `after`, `limit`: answer ``ConflictsResponse`` — the values
    /// a later push replaced without having seen them, which that client wrote.
    public static let conflictsPath = "v1/conflicts"
    /// `GET`: answer ``SpaceList`` — the spaces the caller's token reaches, with the caller's
    /// role. `POST` with a JWT: body ``NewSpace``, a shared space made with the caller as its
    /// owner (201, or 200 when the caller already owns it; 409 when someone else made it).
    public static let spacesPath = "v1/spaces"
    /// `GET`, `POST` with ``SpaceMemberEntry``, and `DELETE …/members/{user}`: the members of
    /// the shared space named after `v1/spaces/` (percent-encoded), for JWT users.
    ///
    /// ```swift
    /// SyncProtocol.membersPath(of: "family")   // "v1/spaces/family/members"
    /// ```
    public static func membersPath(of space: String) -> String {
        spacesPath + "/" + escaped(space) + "/members"
    }

    /// The prefix of a JWT user's personal space's name: `user:` and the token's subject.
    ///
    /// ```swift
    /// let mine = SyncProtocol.personalSpacePrefix + "alice"   // "user:alice"
    /// ```
    public static let personalSpacePrefix = "user:"

    /// `DELETE`: removes `user` from the shared space `space` (``membersPath(of:)``), both
    /// percent-encoded.
    ///
    /// ```swift
    /// SyncProtocol.memberPath(of: "family", user: "zoë")   // "v1/spaces/family/members/zo%C3%AB"
    /// ```
    public static func memberPath(of space: String, user: String) -> String {
        membersPath(of: space) + "/" + escaped(user)
    }

    /// `text` with every character but RFC 3986's unreserved ones percent-encoded: a path
    /// segment or a query value that may hold any character (Foundation's query items leave
    /// `&`, `=` and `+` as they are; its alphanumerics include every script's letters).
    ///
    /// ```swift
    /// SyncProtocol.escaped("family & friends")   // "family%20%26%20friends"
    /// ```
    public static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreservedCharacters) ?? text
    }

    /// RFC 3986's unreserved characters.
    private static let unreservedCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    /// The largest request body the server reads: 16 MiB; a larger one is answered 413.
    public static let maxBodyBytes = 16 * 1024 * 1024
    /// The most rows one pull answers (a larger `limit` is cut to it).
    public static let maxPullLimit = 10_000
    /// The longest a pull waits for a change (`wait`, seconds).
    public static let maxWaitSeconds = 60
    /// The query parameter of a long poll (`wait` > 0) naming a shared space it also watches,
    /// repeated once per space, each item ``watchItem(space:cursor:)``: the poll ends (with its
    /// own page, normally empty) as soon as one of those spaces holds a row past its cursor,
    /// and the device then pulls that space. Spaces the caller is not a member of are ignored.
    ///
    /// ```swift
    /// let items = followed.map { URLQueryItem(name: SyncProtocol.watchParameter, value: SyncProtocol.watchItem(space: $0.name, cursor: $0.cursor)) }
    /// ```
    public static let watchParameter = "watch"
    /// The most ``watchParameter`` items one pull may carry; more are answered 400.
    ///
    /// ```swift
    /// let watched = followed.prefix(SyncProtocol.maxWatchedSpaces)   // the rest: plain pulls
    /// ```
    public static let maxWatchedSpaces = 100

    /// One ``watchParameter`` item: `<cursor>:<space name>` (the cursor a decimal integer
    /// >= 0, the name 1 to 200 bytes, any characters: the server splits at the first colon).
    /// Percent-encode it in the query, `+` and `&` included.
    ///
    /// ```swift
    /// SyncProtocol.watchItem(space: "family", cursor: 42)   // "42:family"
    /// ```
    public static func watchItem(space: String, cursor: Int64) -> String { "\(cursor):\(space)" }
    /// The longest row id and column name the server stores: 1,024 bytes (a text id's or a
    /// name's UTF-8, a blob id's bytes). Ids are keys of the server's index, which PostgreSQL
    /// bounds at about 2.7 kB; a push holding a longer one is answered 413 naming it, and the
    /// client sets such a row aside instead of sending it.
    ///
    /// ```swift
    /// let fits = name.utf8.count <= SyncProtocol.maxKeyBytes
    /// ```
    public static let maxKeyBytes = 1024

    /// The version of the messages' members: a reader refuses a member its version does
    /// not declare (``WireReader/message(_:_:)``). A peer adds to a message of this
    /// version only under ``extensionMember``; a change an older peer must not ignore takes
    /// a new version, with new paths (`v2/…`).
    ///
    /// ```swift
    /// SyncProtocol.wireVersion   // 1: the paths under "v1/"
    /// ```
    public static let wireVersion = 1

    /// The extension point of every message object: the member `"ext"`, an object whose
    /// members a newer peer adds (each named for its feature). A reader checks its JSON and
    /// skips what it does not know, so that a newer server can add to its answers without
    /// breaking an older client.
    ///
    /// ```json
    /// {"rows":[],"cursor":0,"hasMore":false,"ext":{"hint":{"retryAfter":5}}}
    /// ```
    public static let extensionMember = "ext"

    /// The bytes by which ``maxKeyBytes`` bounds `id`: a text's UTF-8, a blob's bytes, 0
    /// for other values (which are short).
    ///
    /// ```swift
    /// SyncProtocol.keyBytes(of: .text("café"))   // 5
    /// ```
    public static func keyBytes(of id: SyncValue) -> Int {
        switch id {
        case .text(let text): text.utf8.count
        case .blob(let data): data.count
        default: 0
        }
    }

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
