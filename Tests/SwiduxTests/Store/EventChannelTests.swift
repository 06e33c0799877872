import Testing
@testable import Swidux

@Suite("EventChannel")
struct EventChannelTests {
    @Test func negativeBufferSizeIsRejectedWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = EventChannel<Int>(bufferSize: -1)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("EventChannel: bufferSize must be 0 or more"))
        #expect(message.contains("got -1"))
    }

    @Test func zeroBufferSizeKeepsNothingWhileNobodyListens() async {
        let channel = EventChannel<Int>(bufferSize: 0)
        channel.emit(1)
        var events = channel.events.makeAsyncIterator()
        channel.emit(2)
        #expect(await events.next() == 2)
    }

    @Test func fullBufferDropsTheOldest() async {
        let channel = EventChannel<Int>(bufferSize: 2)
        for i in 1...4 { channel.emit(i) }
        var events = channel.events.makeAsyncIterator()
        #expect(await events.next() == 3)
        #expect(await events.next() == 4)
    }
}
