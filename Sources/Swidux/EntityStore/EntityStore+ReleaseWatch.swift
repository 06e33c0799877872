import Foundation

extension EntityStore {
    /// Hands a writer the entities of the storage it last drained when that storage is
    /// released — which happens when the app assigns another store over the one it held
    /// (`state.items = backup`): the writer then persists the difference between the two
    /// (see `TypedStateWriterBox.drainReplacement`). Only the storage being watched deposits;
    /// the deposit lives until the writer's next drain.
    @usableFromInline
    final class ReleaseWatch: @unchecked Sendable {
        private let lock = NSLock()
        private var watched: ObjectIdentifier?
        private var deposit: [Entity?]?

        @usableFromInline init() {}

        /// Watches `storage` (which must hold this watch), forgetting any earlier deposit.
        @usableFromInline
        func watch(_ storage: Storage) {
            lock.lock(); defer { lock.unlock() }
            watched = ObjectIdentifier(storage)
            deposit = nil
            storage.fields.pointee.releaseWatch = self
        }

        /// Called by a storage's deinit: keeps its slots if it is the one watched.
        @usableFromInline
        func released(_ storage: ObjectIdentifier, slots: consuming [Entity?]) {
            lock.lock(); defer { lock.unlock() }
            guard storage == watched else { return }
            watched = nil
            deposit = slots
        }

        /// The slots of the watched storage, if it was released since it was watched.
        func take() -> [Entity?]? {
            lock.lock(); defer { lock.unlock() }
            defer { deposit = nil }
            return deposit
        }
    }
}
