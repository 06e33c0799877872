extension MVIStore {
    /// Runs `apply` now, and again after every change of the state it read: UIKit and AppKit
    /// code renders from the store this way, without Combine.
    /// The observation lasts while the returned token is held. A closure that sends, and so
    /// changes the state it read, runs again at once until what it read is current.
    ///
    /// ```swift
    /// override func viewDidLoad() {
    ///     super.viewDidLoad()
    ///     observation = store.observe { [weak self] store in self?.render(store.state) }
    /// }
    /// @objc private func incrementTapped() { store.send(.incrementTapped) }
    /// ```
    public func observe(_ apply: @escaping @MainActor (MVIStore<State, Intent, Action>) -> Void) -> ObservationToken {
        observeRepeatedly(self, apply)
    }
}
