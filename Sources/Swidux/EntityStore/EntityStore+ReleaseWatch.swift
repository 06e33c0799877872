import Foundation

extension EntityStore {
    /// Hands a writer the entities of the storage it last drained when that storage is
    /// released — which happens when the app assigns another store over the one it held
    /// (`state.items = backup`): the writer then persists the difference between the two
    /// (see `TypedStateWriterBox.drainReplacement`). Only the storage being watched deposits;
    /// the deposit lives until the writer's next drain.
    @usableFromInline
    final class ReleaseWatch: Sendable {
        private struct State {
            var watched: ObjectIdentifier?
            var deposit: [Entity?]?
        }
        private let state = LockedValue(State())

        @usableFromInline init() {}

        /// Watches `storage` (which must hold this watch), forgetting any earlier deposit.
        @usableFromInline
        func watch(_ storage: Storage) {
            state.withLock { state in
                state.watched = ObjectIdentifier(storage)
                state.deposit = nil
            }
            storage.fields.pointee.releaseWatch = self
        }

        /// Called by a storage's deinit: keeps its slots if it is the one watched.
        @usableFromInline
        func released(_ storage: ObjectIdentifier, slots: consuming [Entity?]) {
            state.withLock { state in
                guard storage == state.watched else { return }
                state.watched = nil
                state.deposit = slots
            }
        }

        /// The slots of the watched storage, if it was released since it was watched.
        func take() -> [Entity?]? {
            state.withLock { state in
                defer { state.deposit = nil }
                return state.deposit
            }
        }
    }
}
