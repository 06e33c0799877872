import Foundation

extension EntityStore {
    /// Hands a writer the entities of the storage it last drained when that storage is
    /// released — which happens when the app assigns another store over the one it held
    /// (`state.items = backup`): the writer then persists the difference between the two
    /// (see `TypedStateWriterBox.drainReplacement`). Only the storage being watched deposits;
    /// the deposit lives until the writer's next drain.
    ///
    /// It also gives the writer the watched storage while that storage lives, without a weak
    /// reference: a weak reference gives the storage a side table, and every retain and
    /// release of it (an undo step makes four per send) then takes the runtime's slow path.
    /// The storage is held unretained; its release clears it under the watch's lock before
    /// the storage is destroyed, so a storage read under that lock is alive.
    @usableFromInline
    final class ReleaseWatch: Sendable {
        private struct State {
            var watched: ObjectIdentifier?
            /// The watched storage, valid while `watched` is set (see the type's documentation).
            unowned(unsafe) var storage: Storage?
            var deposit: [Entity?]?
        }
        private let state = LockedValue(State())

        @usableFromInline init() {}

        /// Watches `storage` (which must hold this watch), forgetting any earlier deposit.
        @usableFromInline
        func watch(_ storage: Storage) {
            state.withLock { state in
                state.watched = ObjectIdentifier(storage)
                state.storage = storage
                state.deposit = nil
            }
            storage.addReleaseWatch(self)
        }

        /// Called by a storage's deinit: keeps its slots if it is the one watched.
        @usableFromInline
        func released(_ storage: ObjectIdentifier, slots: consuming [Entity?]) {
            state.withLock { state in
                guard storage == state.watched else { return }
                state.watched = nil
                state.storage = nil
                state.deposit = slots
            }
        }

        /// What the watched storage holds, seen from the store being drained, whose storage
        /// is `current`: `.same` when it is the watched storage itself (still alive), else the
        /// watched storage's slots — read while it lives, or deposited by its release — or
        /// `.gone` when neither is known (a deposit is taken once).
        func watchedContents(current: Storage) -> WatchedContents {
            state.withLock { state in
                if let storage = state.storage {
                    // Alive: its release would have cleared `storage` under this lock first.
                    return storage === current ? .same : .slots(storage.slots)
                }
                defer { state.deposit = nil }
                return state.deposit.map(WatchedContents.slots) ?? .gone
            }
        }

        /// See ``watchedContents(current:)``.
        enum WatchedContents {
            case same
            case slots([Entity?])
            case gone
        }
    }
}

extension EntityStore.Storage {
    /// Adds `watch` to the watches its release tells (once each).
    @usableFromInline
    func addReleaseWatch(_ watch: EntityStore.ReleaseWatch) {
        guard let primary = fields.pointee.releaseWatch else {
            fields.pointee.releaseWatch = watch
            return
        }
        if primary === watch { return }
        var others = fields.pointee.otherReleaseWatches ?? []
        if others.contains(where: { $0 === watch }) { return }
        others.append(watch)
        fields.pointee.otherReleaseWatches = others
    }
}
