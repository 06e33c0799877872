/// Reads and mutates (in place) a part of the state named by a key path the app gave
/// (``UndoMiddleware/init(maxDepth:recording:_:)``), possibly nested (`\.data.items`), or
/// the whole state (`\.self`, the snapshot mode).
struct FieldAccess<State, Value> {
    let keyPath: WritableKeyPath<State, Value>
    /// The part's byte offset in the state when the key path is a chain of stored
    /// properties of structs (`MemoryLayout.offset(of:)`), else -1.
    let offset: Int

    init(_ keyPath: WritableKeyPath<State, Value>) {
        self.keyPath = keyPath
        offset = MemoryLayout<State>.offset(of: keyPath) ?? -1
    }

    func get(_ state: State) -> Value { state[keyPath: keyPath] }

    func modify(_ state: inout State, _ body: (inout Value) -> Void) { body(&state[keyPath: keyPath]) }
}

extension FieldAccess where Value == State {
    /// The whole state.
    static var root: FieldAccess { FieldAccess(\State.self) }
}

/// One part of the state the app names as undoable (see ``UndoMiddleware``): an
/// ``EntityStore`` becomes a store slot (patches per entity), anything else a field slot
/// (its previous value when a step changed it).
struct UndoRecordedPath<State> {
    let keyPath: AnyKeyPath
    /// The part's bytes in the state, when its offset is known (to refuse overlapping paths).
    let bytes: Range<Int>?
    /// Makes the part's slot (a layout's slots hold per-step state: one per layout).
    let makeSlot: () -> UndoSlot<State>

    init<Value>(_ keyPath: WritableKeyPath<State, Value>) {
        self.keyPath = keyPath
        let offset = MemoryLayout<State>.offset(of: keyPath)
        bytes = offset.map { $0..<($0 + Swift.max(MemoryLayout<Value>.size, 1)) }
        makeSlot = {
            let access = FieldAccess(keyPath)
            if let store = Value.self as? any UndoRecordingStore.Type {
                return .store(store.undoSlot(access, in: State.self))
            }
            return .field(TypedFieldSlot(access))
        }
    }

    /// Stops with a message naming the culprit if two paths are the same or overlap (one
    /// inside the other: `\.data` and `\.data.items`), where their offsets tell.
    static func validate(_ paths: [UndoRecordedPath]) {
        for (index, path) in paths.enumerated() {
            for other in paths[..<index] {
                precondition(path.keyPath != other.keyPath,
                             "UndoMiddleware: \(path.keyPath) is named twice in `recording:`")
                if let bytes = path.bytes, let otherBytes = other.bytes {
                    precondition(!bytes.overlaps(otherBytes), """
                        UndoMiddleware: \(path.keyPath) and \(other.keyPath) overlap (one contains the other); \
                        name each undoable part once in `recording:`
                        """)
                }
            }
        }
    }
}

/// A slot of an ``UndoLayout``.
enum UndoSlot<State> {
    case store(any StoreSlot<State>)
    case field(any FieldSlot<State>)
}
