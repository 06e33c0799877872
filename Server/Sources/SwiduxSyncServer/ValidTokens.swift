import Synchronization

/// Tokens that a woken long poll found valid, so that the poll's next request — which
/// follows its answer at once — need not check its token again (with
/// 2,000 open long polls, that first check was one query per poll answered).
///
/// An entry holds the token's space and the space's notification generation seen before
/// the check's query started (``Notifier/generation(of:)``). It answers only while the
/// space's generation is still that one — `token revoke` notifies the space, which moves
/// it — and for at most ``lifetime``, so that a revocation made without a notification
/// (plain SQL) still reaches an open poll within ``Routes/recheckInterval`` plus that.
/// Only long polls use it (a push, `PUT /v1/tables` and a plain pull always query).
///
/// ```swift
/// tokens.remember(token, space: space, user: user, generation: seen)          // after a shared check
/// if let known = tokens.entry(for: token),
///    await notifier.generation(of: known.space) == known.generation { /* valid */ }
/// ```
final class ValidTokens: Sendable {
    private struct Entry {
        var space: Int64
        /// The user the token's requests count for (``RequestLimits``).
        var user: String
        var generation: UInt64
        var checked: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var pruneAt = 64
    }

    private let state = Mutex(State())
    /// How long an entry answers at most.
    let lifetime: Duration

    init(lifetime: Duration) { self.lifetime = lifetime }

    /// `token` opens `space`: a check whose query started after the space's generation was
    /// `generation` said so.
    func remember(_ token: String, space: Int64, user: String, generation: UInt64) {
        let now = ContinuousClock.now
        let lifetime = self.lifetime
        state.withLock { state in
            state.entries[token] = Entry(space: space, user: user, generation: generation, checked: now)
            if state.entries.count >= state.pruneAt {
                state.entries = state.entries.filter { now - $0.value.checked <= lifetime }
                state.pruneAt = max(64, state.entries.count * 2)
            }
        }
    }

    /// The space `token` opened and the generation then, if checked less than ``lifetime``
    /// ago; the caller compares the generation with the space's current one.
    func entry(for token: String) -> (space: Int64, user: String, generation: UInt64)? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let entry = state.entries[token], now - entry.checked <= lifetime else { return nil }
            return (entry.space, entry.user, entry.generation)
        }
    }
}
