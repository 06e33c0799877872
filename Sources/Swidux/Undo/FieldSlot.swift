import Foundation

/// What a field slot does on every step, on the state's raw address: a non-generic base
/// class, so that the layout's loops call it without generic metadata and without
/// retaining it (see ``StoreStepRecorder``).
class FieldStepRecorder {
    /// Starts the step: the slot keeps the field's value (until ``end(_:)``).
    func begin(_ state: UnsafeMutableRawPointer, retaining: Bool) {
        preconditionFailure("FieldStepRecorder: begin is overridden by each slot")
    }
    /// Ends the step: adds the field's previous value to `fields` as slot `index`'s, if it
    /// changed. (Given `fields`, not returning an `Any?`: a `nil` one for an unchanged
    /// field, the usual case, would be destroyed through `Optional`'s value witness.)
    func end(_ state: UnsafeMutableRawPointer, into fields: inout SlotValues<Any>, index: Int) {
        preconditionFailure("FieldStepRecorder: end is overridden by each slot")
    }
}

/// A field of the state other than an entity store, by key path (``TypedFieldSlot``): keeps
/// the field's value at `begin`, gives it back at `end` if it changed, and writes a kept
/// value back.
protocol FieldSlot<State>: FieldStepRecorder {
    associatedtype State
    func write(_ value: Any, into state: inout State)
}

final class TypedFieldSlot<State, Value>: FieldStepRecorder, FieldSlot {
    let access: FieldAccess<State, Value>
    /// How the value is compared, decided at first use: `equals` (`==`) when it is
    /// `Equatable` and holds no entity store, else a ``ChangeDetector`` snapshot. Flags and a
    /// plain closure, not optionals of closures: reading a closure out of an optional costs
    /// a reabstraction thunk (an allocation) per read here.
    private var isDecided = false
    private var comparesWithEquals = false
    private var equals: (UnsafePointer<Value>, UnsafePointer<Value>) -> Bool = { _, _ in false }
    private var strategy: ChangeDetector.Strategy = .equatable
    /// The value kept by `keep` through a pointer (a stored property compared with `==`).
    private let kept: UnsafeMutablePointer<Value>
    /// Its bytes as they were in the state: unchanged bytes are an unchanged value (the kept
    /// copy holds every reference they contain, so none was mutated in place or reused), and
    /// comparing them costs no `==` (a copy's padding may differ: the state's own bytes are kept).
    private let keptBytes: UnsafeMutableRawPointer
    private let size: Int
    /// The field's byte offset in the state (see ``FieldAccess/offset``), else -1.
    private let offset: Int
    private var holdsKept = false
    /// The value kept otherwise (boxed), and what ``ChangeDetector`` remembers of it.
    private var keptValue: Any?
    private var keptSnapshot: ChangeDetector.Snapshot?

    init(_ access: FieldAccess<State, Value>) {
        self.access = access
        offset = access.offset
        size = MemoryLayout<Value>.size
        kept = .allocate(capacity: 1)
        keptBytes = .allocate(byteCount: Swift.max(size, 1), alignment: 8)
    }

    deinit {
        if holdsKept { kept.deinitialize(count: 1) }
        kept.deallocate()
        keptBytes.deallocate()
    }

    // The per-step path of a field at an offset compared with `==` (the usual one) holds
    // as few values of the generic type in locals as it can: each costs a run-time sized
    // stack allocation in the function's prologue on every call, where nothing is
    // specialized. The first step and the boxed path are in functions of their own.

    override func begin(_ raw: UnsafeMutableRawPointer, retaining: Bool) {
        if !isDecided { decide(raw) }
        if offset >= 0, comparesWithEquals {
            let field = raw + offset
            keptBytes.copyMemory(from: field, byteCount: size)
            kept.initialize(to: field.assumingMemoryBound(to: Value.self).pointee)
            holdsKept = true
            return
        }
        beginBoxed(raw)
    }

    override func end(_ raw: UnsafeMutableRawPointer, into fields: inout SlotValues<Any>, index: Int) {
        guard holdsKept else {
            if let value = endBoxed(raw) { fields.append(index, value) }
            return
        }
        holdsKept = false
        let field = raw + offset
        if Self.bytesEqual(keptBytes, field, count: size) || equals(kept, field.assumingMemoryBound(to: Value.self)) {
            // Moved out and dropped: `deinitialize(count:)` goes through the runtime's
            // generic array destroy here, where nothing is specialized (twice the work).
            _ = kept.move()
            return
        }
        fields.append(index, kept.move())
    }

    /// Decides how the value is compared, at the first step.
    @inline(never)
    private func decide(_ raw: UnsafeMutableRawPointer) {
        let value = access.get(raw.assumingMemoryBound(to: State.self).pointee)
        strategy = ChangeDetector.strategy(for: value)
        if strategy == .equatable, let equality = Self.equality(Value.self) {
            equals = equality
            comparesWithEquals = true
        }
        isDecided = true
    }

    /// `begin` for a field kept boxed (reached through its key path, or compared by a
    /// ``ChangeDetector`` snapshot).
    @inline(never)
    private func beginBoxed(_ raw: UnsafeMutableRawPointer) {
        let value = access.get(raw.assumingMemoryBound(to: State.self).pointee)
        keptValue = value
        keptSnapshot = comparesWithEquals ? nil : ChangeDetector.snapshot(value, strategy: strategy)
    }

    /// `end` for a field kept boxed.
    @inline(never)
    private func endBoxed(_ raw: UnsafeMutableRawPointer) -> Any? {
        guard let value = keptValue else { return nil }
        let snapshot = keptSnapshot
        keptValue = nil
        keptSnapshot = nil
        var now = access.get(raw.assumingMemoryBound(to: State.self).pointee)
        if comparesWithEquals {
            var before = value as! Value
            return equals(&before, &now) ? nil : value
        }
        guard let snapshot else { return value }
        return ChangeDetector.hasChanged(snapshot, to: now) ? value : nil
    }

    func write(_ value: Any, into state: inout State) {
        access.modify(&state) { $0 = value as! Value }
    }

    private static func equality(_ type: Value.Type) -> ((UnsafePointer<Value>, UnsafePointer<Value>) -> Bool)? {
        guard let equatable = type as? any Equatable.Type else { return nil }
        func make<E: Equatable>(_: E.Type) -> (UnsafePointer<Value>, UnsafePointer<Value>) -> Bool {
            // `E` is `Value` itself: the values are read as what they are (no dynamic cast).
            { lhs, rhs in
                lhs.withMemoryRebound(to: E.self, capacity: 1) { lhs in
                    rhs.withMemoryRebound(to: E.self, capacity: 1) { rhs in lhs.pointee == rhs.pointee }
                }
            }
        }
        return make(equatable)
    }

    /// Byte-wise equality of `count` bytes.
    private static func bytesEqual(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(lhs, rhs, count) == 0
    }
}
