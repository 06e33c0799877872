import Observation

/// The subject of the registrar keys of slices and entity entries: a non-generic type, so
/// that registering an access or a change looks no generic metadata up at run time. Never
/// read: the registrar only hashes and compares its keys.
final class SliceKeys: Observable, Sendable {
    nonisolated subscript(slice token: Int) -> Int { token }
    /// The member behind the registrar keys of entity entries (rows, memberships).
    nonisolated subscript(entry token: Int) -> Int { token }
}

/// A key path read by an observer: the tracker's bookkeeping of it, and its typed change
/// test (a ``SliceTest``). Final and not generic: the tracker keeps, lists and notifies
/// slices on every dispatch, and a generic class would have its metadata looked up at run
/// time each time.
final class TrackedSlice {
    var armed = false
    /// In its armed list (a disarmed slice stays there until the list is compacted).
    var listed = false
    /// The group of the state's stored property the key path starts with, if known.
    var group: SliceGroup?
    /// The key path read (for the lookup by identity); kept alive by the test.
    unowned(unsafe) let pathObject: AnyKeyPath
    /// Its registrar key, rooted in a non-generic type (see ``SliceKeys``).
    let key: KeyPath<SliceKeys, Int>
    /// The byte offset of the value in the state when the key path names a stored property
    /// (`MemoryLayout.offset(of:)`), else -1.
    let offset: Int
    /// Compares and remembers the value at the key path.
    let test: any SliceTest

    init(test: any SliceTest, pathObject: AnyKeyPath, offset: Int, key: KeyPath<SliceKeys, Int>) {
        self.test = test
        self.pathObject = pathObject
        self.offset = offset
        self.key = key
    }

    /// Registers a read with the current observer.
    @MainActor func access<State>(_ tracker: ObservationTracker<State>) {
        tracker.registrar.access(tracker.sliceKeys, keyPath: key)
        ObservedRun.noteRead(tracker, key)
    }
    /// Notifies the observers of this slice.
    @MainActor func notify<State>(_ tracker: ObservationTracker<State>) {
        ObservedRun.noteChange(tracker, key)
        tracker.registrar.willSet(tracker.sliceKeys, keyPath: key)
        tracker.registrar.didSet(tracker.sliceKeys, keyPath: key)
    }
}

/// The typed part of a slice: how the value at its key path is compared and remembered.
/// The state and the value are passed by pointer, so that the tracker, which is not
/// generic over the value, looks no metadata up to call it.
protocol SliceTest: AnyObject {
    /// `true` if the value changed since the last call or `rebase`; `state` points to the
    /// root state.
    func changed(_ state: UnsafeRawPointer) -> Bool
    /// Remembers the current value (the reader just saw it); `state` points to the root state.
    func rebase(_ state: UnsafeRawPointer)
    /// Remembers the value just read, if this test can from the value alone (`value`
    /// points to it); `false`: rebase it from the state.
    func rebase(value: UnsafeRawPointer) -> Bool
    /// Forgets the remembered value (disarmed).
    func forget()
}

extension ObservationTracker {
    /// The value at `path` (at byte `offset` when it is a stored property) in the state
    /// `state` points to.
    @inline(__always)
    nonisolated static func value<Value>(at path: KeyPath<State, Value>, offset: Int, in state: UnsafeRawPointer) -> Value {
        offset >= 0
            ? (state + offset).assumingMemoryBound(to: Value.self).pointee
            : state.assumingMemoryBound(to: State.self).pointee[keyPath: path]
    }

    /// Compares fingerprints (entity stores and other ``ChangeFingerprinting`` values).
    final class FingerprintSlice<Value: ChangeFingerprinting>: SliceTest {
        let path: KeyPath<State, Value>
        let offset: Int
        var last: ChangeFingerprint?
        init(path: KeyPath<State, Value>, offset: Int) {
            self.path = path
            self.offset = offset
        }
        func changed(_ state: UnsafeRawPointer) -> Bool {
            let now = ObservationTracker.value(at: path, offset: offset, in: state).changeFingerprint
            if now == last { return false }
            last = now
            return true
        }
        func rebase(_ state: UnsafeRawPointer) {
            last = ObservationTracker.value(at: path, offset: offset, in: state).changeFingerprint
        }
        func rebase(value: UnsafeRawPointer) -> Bool {
            last = value.assumingMemoryBound(to: Value.self).pointee.changeFingerprint
            return true
        }
        func forget() {}
    }

    /// Compares with `==` (or the same bits, see `ChangeDetector.sameValue`).
    final class EquatableSlice<Value: Equatable>: SliceTest {
        let path: KeyPath<State, Value>
        let offset: Int
        /// The remembered value, in `storage` when `hasLast`: an optional of a generic type
        /// would have its metadata looked up at run time on every dispatch.
        private let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        private var hasLast = false
        init(path: KeyPath<State, Value>, offset: Int) {
            self.path = path
            self.offset = offset
        }
        deinit {
            if hasLast { storage.deinitialize(count: 1) }
            storage.deallocate()
        }
        /// `true` if the value differs from the remembered one (a slice that changed is
        /// disarmed and forgets it: nothing is remembered then).
        func changed(_ state: UnsafeRawPointer) -> Bool {
            guard hasLast else { return true }
            if offset >= 0 {
                // In place: neither the state nor the value is copied.
                let now = (state + offset).assumingMemoryBound(to: Value.self)
                return storage.pointee != now.pointee && !Self.sameBits(storage, now)
            }
            let now = state.assumingMemoryBound(to: State.self).pointee[keyPath: path]
            return storage.pointee != now && !ChangeDetector.sameBits(storage.pointee, now)
        }
        /// Unequal values with the same bits (a NaN) are unchanged: the gate compares bits
        /// (see `ChangeDetector.sameValue`).
        @inline(never)
        private static func sameBits(_ a: UnsafeMutablePointer<Value>, _ b: UnsafePointer<Value>) -> Bool {
            UnsafeRawBufferPointer(start: a, count: MemoryLayout<Value>.size)
                .elementsEqual(UnsafeRawBufferPointer(start: b, count: MemoryLayout<Value>.size))
        }
        func rebase(_ state: UnsafeRawPointer) {
            remember(state.assumingMemoryBound(to: State.self).pointee[keyPath: path])
        }
        func rebase(value: UnsafeRawPointer) -> Bool {
            remember(value.assumingMemoryBound(to: Value.self).pointee)
            return true
        }
        private func remember(_ value: Value) {
            if hasLast {
                storage.pointee = value
            } else {
                storage.initialize(to: value)
                hasLast = true
            }
        }
        func forget() {
            guard hasLast else { return }
            storage.deinitialize(count: 1)
            hasLast = false
        }
    }

    /// Any other value: compared structurally (see ``ChangeDetector``).
    final class StructuralSlice<Value>: SliceTest {
        let path: KeyPath<State, Value>
        var tracked: TrackedValue<State>?
        init(path: KeyPath<State, Value>) { self.path = path }
        func changed(_ state: UnsafeRawPointer) -> Bool {
            guard var tracked else { return true }
            let changed = tracked.update(from: state.assumingMemoryBound(to: State.self).pointee)
            self.tracked = tracked
            return changed
        }
        func rebase(_ state: UnsafeRawPointer) {
            let path = self.path
            tracked = TrackedValue(root: state.assumingMemoryBound(to: State.self).pointee, read: { $0[keyPath: path] })
        }
        func rebase(value: UnsafeRawPointer) -> Bool { false }
        func forget() { tracked = nil }
    }
}
