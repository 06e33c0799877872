extension Store {
    /// Reads ``runningEffectCount`` from any thread. For test tooling (SwiduxTesting's
    /// `TestStore`), whose end-of-test check in `deinit` runs outside the main actor.
    @_spi(Testing)
    public var runningEffectCountReader: @Sendable () -> Int {
        let registry = box.root.registry
        return { registry.count }
    }
}
