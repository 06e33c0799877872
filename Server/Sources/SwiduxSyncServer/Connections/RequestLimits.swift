import Synchronization

/// The requests in flight (long polls included) per user and per space, each up to a limit:
/// a request past either is refused with 429 and `Retry-After`, before it changes anything.
/// A user is a JWT's subject, or an opaque token (one device or script).
///
/// ```swift
/// let limits = RequestLimits(perUser: 100, perSpace: 1000)
/// guard limits.enter(user: "jwt:alice", space: 7) else { /* 429 */ }
/// defer { limits.leave(user: "jwt:alice", space: 7) }
/// ```
final class RequestLimits: Sendable {
    private struct State {
        var users: [String: Int] = [:]
        var spaces: [Int64: Int] = [:]
    }

    /// The most requests one user may have in flight.
    let perUser: Int
    /// The most requests one space may have in flight, all its users together.
    let perSpace: Int
    private let state = Mutex(State())

    init(perUser: Int, perSpace: Int) {
        self.perUser = perUser
        self.perSpace = perSpace
    }

    /// Counts a request of `user` in `space`; false (not counted) when either is at its limit.
    func enter(user: String, space: Int64) -> Bool {
        let (perUser, perSpace) = (self.perUser, self.perSpace)
        return state.withLock { state in
            let (users, spaces) = (state.users[user, default: 0], state.spaces[space, default: 0])
            guard users < perUser, spaces < perSpace else { return false }
            state.users[user] = users + 1
            state.spaces[space] = spaces + 1
            return true
        }
    }

    /// A request counted by ``enter(user:space:)`` ended.
    func leave(user: String, space: Int64) {
        state.withLock { state in
            let users = state.users[user, default: 1] - 1
            state.users[user] = users > 0 ? users : nil
            let spaces = state.spaces[space, default: 1] - 1
            state.spaces[space] = spaces > 0 ? spaces : nil
        }
    }
}
