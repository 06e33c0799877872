import Foundation
import NIOCore
import SwiduxSyncWire

/// A device waiting for its space's changes: long polls `GET /v1/pull?after=<cursor>&wait=…`
/// on its own connection, one after another, until told to stop; records each row it gets.
struct Poller: Sendable {
    let connection: HTTPConnection
    let token: String
    let wait: Int
    let recorder: LoadRecorder

    func run(until stop: @escaping @Sendable () -> Bool) async {
        var cursor: Int64 = 0
        let decoder = JSONDecoder()
        while !stop() {
            do {
                let (status, body) = try await connection.send(
                    method: .GET, uri: "/\(SyncProtocol.pullPath)?after=\(cursor)&wait=\(wait)&limit=1000", token: token)
                let time = LoadRecorder.now()
                guard (200..<300).contains(status) else {
                    recorder.error("pull: HTTP \(status) \(String(buffer: body).prefix(200))")
                    try await Task.sleep(for: .seconds(1))
                    continue
                }
                let page = try decoder.decode(PullResponse.self, from: Data(body.readableBytesView))
                recorder.received(versions: page.rows.map(\.version), at: time)
                cursor = page.cursor
            } catch {
                if stop() { return }
                recorder.error("pull: \(error)")
                return
            }
        }
    }
}

/// A device writing: pushes one new row every `interval` on its own connection, recording
/// when each push was sent and answered.
struct Pusher: Sendable {
    let connection: HTTPConnection
    let token: String
    let space: Int
    let name: String
    let recorder: LoadRecorder

    func run(count: Int, interval: Duration, startDelay: Duration) async {
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        let clock = ContinuousClock()
        try? await Task.sleep(for: startDelay)
        var next = clock.now
        for index in 1...max(count, 1) where count > 0 {
            try? await Task.sleep(until: next, clock: clock)
            next += interval
            let change = SyncChange(table: "todo", id: .text("\(name)-\(index)"), kind: .update,
                                    columns: ["title": .text("Todo \(index) from \(name)"), "done": .integer(0)])
            do {
                let body = try encoder.encode(PushRequest(clientID: name, mutations: [SyncMutation(id: Int64(index), changes: [change])]))
                let sent = LoadRecorder.now()
                let (status, answer) = try await connection.send(method: .POST, uri: "/\(SyncProtocol.pushPath)", token: token,
                                                                 body: ByteBuffer(bytes: body))
                let answered = LoadRecorder.now()
                guard (200..<300).contains(status) else {
                    recorder.error("push: HTTP \(status) \(String(buffer: answer).prefix(200))")
                    continue
                }
                let response = try decoder.decode(PushResponse.self, from: Data(answer.readableBytesView))
                for result in response.results where result.applied {
                    recorder.pushed(version: result.current.version, space: space, sent: sent, answered: answered)
                }
            } catch {
                recorder.error("push: \(error)")
                return
            }
        }
    }
}
