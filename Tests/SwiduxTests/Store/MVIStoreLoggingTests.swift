import Logging
import Testing
import SwiduxTestSupport
@testable import Swidux

/// `MVIStore` never loses an effect's error silently: by default it is logged, as `Store` does.
@MainActor
@Suite("MVIStore errors", .timeLimit(.minutes(1)))
struct MVIStoreLoggingTests {
    struct Offline: Error, CustomStringConvertible { var description: String { "offline" } }

    @Test func anUnhandledEffectErrorIsLoggedByDefault() async {
        let sink = CapturedLog()
        let store = MVIStore<Int, Int, Int>(
            initial: 0,
            reduceIntent: { _, _ in .run { () async throws -> Int in throw Offline() } },
            reduceAction: { (state: inout Int, action: Int) in state = action },
            logger: Logger(label: "test") { _ in sink }
        )
        await store.send(1).finish()
        #expect(sink.messages.contains { $0.contains("unhandled effect error") && $0.contains("offline") })
    }

    @Test func aCustomHandlerReceivesTheError() async {
        let errors = Recorder<String>()
        let store = MVIStore<Int, Int, Int>(
            initial: 0,
            reduceIntent: { _, _ in .run { () async throws -> Int in throw Offline() } },
            reduceAction: { (state: inout Int, action: Int) -> Effect<Int>? in state = action; return nil },
            onUnexpectedError: { errors.append("\($0)") }
        )
        await store.send(1).finish()
        #expect(errors.values == ["offline"])
    }
}
