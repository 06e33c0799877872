import Foundation
import Swidux

/// An in-memory table for one entity type, for tests: a `StateWriter` target that keeps
/// its rows by id, in order, and records every batch a flush wrote, so that a test can
/// assert exactly what an action persisted. It can also fail on demand, for retry tests.
///
/// ```swift
/// let clock = TestClock()
/// let items = InMemoryBackend<Item>()
/// let store = TestStore(
///     initialState: AppState(), reducer: AppReducer(), environment: .test,
///     persistence: PersistenceMiddleware(writers: [items.stateWriter(for: \.items)], clock: clock)
/// )
/// await store.send(.add(milk)) { $0.items[milk.id] = milk }
/// await store.closePersistenceWindow()   // the debounce window closes, the flush is written
/// #expect(items.takeBatches() == [.init(writes: [milk])])
/// #expect(items.rows == [milk])
/// ```
///
/// **Updates of missing rows.** A write is an insertion or an update (see
/// `WriteBatch/insertions`). By default this backend applies an update of a row it does
/// not hold as an insertion (a plain upsert) and never reports anything vanished: a test
/// that builds its state with `EntityStore(rows)` (hydration) without giving the same rows
/// to the backend, then changes them, writes updates, and its entities must not disappear.
/// Pass `deleteWins: true` for the rule of SQLite (and of `SwiduxSQLite`'s tables): an
/// update of a missing row is not applied, and it and a deletion that finds no row are
/// reported in `WriteResult/vanished`, so that the store forgets them. Simulate the other
/// writer with ``deleteExternally(_:)``:
///
/// ```swift
/// let items = InMemoryBackend([milk], deleteWins: true)
/// // the state is hydrated with `EntityStore([milk])`; an action renames milk…
/// items.deleteExternally([milk.id])          // …while another process deletes it
/// try await store.flush()
/// #expect(store.state.items[milk.id] == nil) // delete wins over the stale update
/// ```
///
/// Thread-safe: flushes write from their own task while the test reads.
public final class InMemoryBackend<Entity: Identifiable & Equatable & Sendable>: @unchecked Sendable
where Entity.ID: Sendable {
    /// One successful write: what a flush handed to the writer.
    public typealias Batch = WriteBatch<Entity>

    /// Guards the fields below.
    private let lock = LockedValue(())
    private var ids: [Entity.ID] = []
    private var storage: [Entity.ID: Entity] = [:]
    private var recorded: [Batch] = []
    private var attempts = 0
    private var failures: [any Error] = []
    private let deleteWins: Bool

    /// A backend holding `rows`, in order (for example to hydrate a state from it).
    ///
    /// - Parameters:
    ///   - rows: the rows the backend starts with (a "file" written before the test).
    ///   - deleteWins: apply "delete wins over a stale update" like SQLite: an
    ///     update of a missing row is not applied and is reported vanished, as is a deletion
    ///     that finds no row. `false` by default: updates of missing rows insert them.
    public init(_ rows: [Entity] = [], deleteWins: Bool = false) {
        self.deleteWins = deleteWins
        for row in rows { upsert(row) }
    }

    /// Deletes rows as another writer would (another process, plain SQL): nothing is
    /// recorded in ``batches``, and the store does not know until a flush finds them gone.
    ///
    /// ```swift
    /// items.deleteExternally([milk.id])
    /// ```
    public func deleteExternally(_ ids: [Entity.ID]) {
        locked {
            for id in ids where storage.removeValue(forKey: id) != nil { self.ids.removeAll { $0 == id } }
        }
    }

    /// The stored rows, in order: inserted rows are appended, updated rows keep their
    /// place, and a batch with an `order` reorders them.
    public var rows: [Entity] {
        locked { ids.compactMap { storage[$0] } }
    }

    /// The stored row with `id`.
    public subscript(id: Entity.ID) -> Entity? {
        locked { storage[id] }
    }

    /// Every successful batch since the backend was created or ``takeBatches()`` was last
    /// called, in order.
    public var batches: [Batch] {
        locked { recorded }
    }

    /// Returns the recorded batches and forgets them, so that the next assertion sees only
    /// what is written after this point.
    ///
    /// ```swift
    /// #expect(items.takeBatches() == [.init(writes: [milk]), .init(deletions: [eggs.id])])
    /// ```
    public func takeBatches() -> [Batch] {
        locked {
            defer { recorded.removeAll() }
            return recorded
        }
    }

    /// How many times the writer was called, failed attempts included.
    public var writeAttempts: Int {
        locked { attempts }
    }

    /// Makes the next `count` writes throw `error` without storing anything; the
    /// `PersistenceMiddleware` keeps the batch and retries it.
    ///
    /// ```swift
    /// items.failNextWrites(count: 2)
    /// await clock.advance(by: .milliseconds(250))   // attempt 1 fails
    /// await clock.advance(by: .milliseconds(500))   // retry 1 fails
    /// await clock.advance(by: .seconds(1))          // retry 2 writes
    /// ```
    public func failNextWrites(count: Int = 1, error: any Error = InjectedWriteError()) {
        locked { failures.append(contentsOf: repeatElement(error, count: count)) }
    }

    /// Applies `batch` (what the `StateWriter` calls), or throws an injected failure
    /// without storing anything. Returns the ids it found gone (only with `deleteWins`).
    ///
    /// ```swift
    /// try items.write(WriteBatch(writes: [milk]))
    /// ```
    @discardableResult
    public func write(_ batch: WriteBatch<Entity>) throws -> WriteResult<Entity.ID> {
        try locked {
            attempts += 1
            if !failures.isEmpty { throw failures.removeFirst() }
            var vanished: [Entity.ID] = []
            for id in batch.deletions {
                if storage.removeValue(forKey: id) != nil {
                    ids.removeAll { $0 == id }
                } else if deleteWins {
                    vanished.append(id)
                }
            }
            for entity in batch.writes {
                if deleteWins, storage[entity.id] == nil, !batch.isInsertion(entity.id) {
                    vanished.append(entity.id)   // delete wins over a stale update
                } else {
                    upsert(entity)
                }
            }
            if let order = batch.order {
                let listed = Set(order)
                ids = order.filter { storage[$0] != nil } + ids.filter { !listed.contains($0) }
            }
            recorded.append(batch)
            return WriteResult(vanished: vanished)
        }
    }

    /// A writer of the entity store at `keyPath` into this backend.
    ///
    /// ```swift
    /// PersistenceMiddleware(writers: [tags.stateWriter(for: \AppState.tags),
    ///                                 items.stateWriter(for: \AppState.items)], clock: clock)
    /// ```
    @MainActor
    public func stateWriter<State>(for keyPath: WritableKeyPath<State, EntityStore<Entity>>) -> StateWriter<State> {
        StateWriter(keyPath: keyPath, apply: { [self] batch in try write(batch) })
    }

    /// Waits, in real time and at most `timeout`, until at least `count` batches are
    /// recorded (a flush runs in its own task after the debounce window closes). The
    /// default of 10 s only matters when the batches never come: a passing test waits until
    /// they are there, and a loaded machine can take more than a second to run the flush.
    /// - Returns: `true` if they were.
    @discardableResult
    public func waitForBatches(count: Int = 1, timeout: Duration = .seconds(10)) async -> Bool {
        await wait(timeout: timeout) { $0.batches.count >= count }
    }

    /// Waits, in real time and at most `timeout`, until the writer was called at least
    /// `count` times, failed attempts included (for retry tests). Like
    /// ``waitForBatches(count:timeout:)``, it returns as soon as that happened.
    /// - Returns: `true` if it was.
    ///
    /// ```swift
    /// items.failNextWrites(count: 1)
    /// await clock.advance(by: .milliseconds(250))
    /// #expect(await items.waitForWriteAttempts(count: 1))   // the first flush failed
    /// ```
    @discardableResult
    public func waitForWriteAttempts(count: Int = 1, timeout: Duration = .seconds(10)) async -> Bool {
        await wait(timeout: timeout) { $0.writeAttempts >= count }
    }

    private func wait(timeout: Duration, until condition: (InMemoryBackend) -> Bool) async -> Bool {
        var budget = WaitBudget(timeout)
        var polls = 0
        while !condition(self) {
            if budget.isSpent { return false }
            if polls < 20 { await Task.yield() } else { try? await Task.sleep(for: .milliseconds(1)) }
            budget.tick()
            polls += 1
        }
        return true
    }

    private func upsert(_ entity: Entity) {
        if storage.updateValue(entity, forKey: entity.id) == nil { ids.append(entity.id) }
    }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock { (_: inout Void) throws(E) -> T in try body() }
    }
}

/// The error ``InMemoryBackend/failNextWrites(count:error:)`` throws by default.
///
/// ```swift
/// items.failNextWrites(count: 1, error: InjectedWriteError("disk full"))
/// ```
public struct InjectedWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the failure says in logs and `PersistenceWriteFailure` descriptions.
    public var message: String
    /// An injected failure saying `message`.
    public init(_ message: String = "injected write failure") { self.message = message }
    /// The message.
    public var description: String { message }
}
