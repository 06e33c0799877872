@_exported import SwiduxTesting
@_exported import Testing

// What TestingFeatures.md's tests assume: test environments for GettingStarted.md's feature.
extension AppEnvironment {
    static let test = AppEnvironment.test(clock: TestClock())

    static func test(clock: any Clock<Duration>, uuid: @escaping @Sendable () -> UUID = { UUID() }) -> AppEnvironment {
        AppEnvironment(uuid: uuid, searchIndex: SearchIndex(), clock: clock, navigation: EventChannel())
    }
}
