/// Reads and mutates (in place) a field of the state, possibly nested, by applying the
/// key paths of the path one after the other.
struct FieldAccess<State, Value> {
    private let getter: (State) -> Value
    private let modifier: (inout State, (inout Value) -> Void) -> Void
    /// A property of the state itself (one key path, never an appended one): applied directly.
    private let direct: WritableKeyPath<State, Value>?
    private let isRoot: Bool
    /// The field's byte offset in the state when it is the state itself or one of its stored
    /// properties (`MemoryLayout.offset(of:)`), else -1.
    let offset: Int

    private init(getter: @escaping (State) -> Value, modifier: @escaping (inout State, (inout Value) -> Void) -> Void,
                 direct: WritableKeyPath<State, Value>?, isRoot: Bool, offset: Int) {
        self.getter = getter
        self.modifier = modifier
        self.direct = direct
        self.isRoot = isRoot
        self.offset = offset
    }


    func get(_ state: State) -> Value {
        if let direct { return state[keyPath: direct] }
        return getter(state)
    }

    func modify(_ state: inout State, _ body: (inout Value) -> Void) {
        if let direct { return body(&state[keyPath: direct]) }
        modifier(&state, body)
    }

    /// The field `keyPath` of this one.
    func appending<Child>(_ keyPath: WritableKeyPath<Value, Child>) -> FieldAccess<State, Child> {
        if isRoot, let direct = keyPath as? WritableKeyPath<State, Child> {
            return FieldAccess<State, Child>(getter: { $0[keyPath: direct] }, modifier: { state, body in body(&state[keyPath: direct]) },
                                             direct: direct, isRoot: false, offset: MemoryLayout<State>.offset(of: direct) ?? -1)
        }
        let parent = self
        return FieldAccess<State, Child>(
            getter: { parent.get($0)[keyPath: keyPath] },
            modifier: { state, body in parent.modify(&state) { body(&$0[keyPath: keyPath]) } },
            direct: nil, isRoot: false, offset: -1
        )
    }
}

extension FieldAccess where Value == State {
    /// The whole state.
    static var root: FieldAccess {
        FieldAccess(getter: { $0 }, modifier: { state, body in body(&state) }, direct: nil, isRoot: true, offset: 0)
    }
}
