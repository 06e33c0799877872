import Testing
@testable import Swidux

@Suite("EventChannel")
struct EventChannelTests {
    @Test func negativeBufferSizeIsRejectedWithAMessage() async {
        await #expect(processExitsWith: .failure) {
            _ = EventChannel<Int>(bufferSize: -1)
        }
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
