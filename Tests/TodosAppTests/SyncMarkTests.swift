import Foundation
import SwiduxSync
import Testing
@testable import TodosApp

/// The sync mark's states and what it says when they change (pure).
@Suite struct SyncMarkTests {
    @Test func offlineStaysUntilRecoveredThenSaysSynced() {
        var mark = SyncMark()
        mark.state = .connecting
        #expect(mark.text == "syncing…")
        let unreachable = SyncError.unreachable(URL(string: "http://127.0.0.1:1")!, underlying: URLError(.cannotConnectToHost))
        #expect(mark.apply(.init(event: .failed(unreachable, retryingIn: .seconds(1)), waiting: 3))?.contains("working offline") == true)
        #expect(mark.text == "offline · 3 changes waiting · s: retry")
        // Later failures and counts update the mark without a new message.
        #expect(mark.apply(.init(event: .failed(unreachable, retryingIn: .seconds(4)), waiting: 3)) == nil)
        #expect(mark.apply(.init(event: nil, waiting: 1)) == nil)
        #expect(mark.text == "offline · 1 change waiting · s: retry")
        #expect(mark.apply(.init(event: .recovered, waiting: 0)) == "sync: connected again")
        #expect(mark.text == "synced")
        #expect(mark.apply(.init(event: nil, waiting: 5)) == nil)   // a count alone never marks offline
        #expect(mark.text == "synced")
    }

    @Test func refusedTokenIsSaidOnceAndMarkedUntilSyncWorks() {
        var mark = SyncMark()
        mark.state = .synced
        #expect(mark.apply(.init(event: .stopped(.unauthorized("unknown or revoked token")), waiting: 0))?.contains("refused the token") == true)
        #expect(mark.text == "token refused — sync stopped · s: retry")
        #expect(mark.apply(.init(event: .stopped(.unauthorized("unknown or revoked token")), waiting: 0)) == nil)
        #expect(mark.apply(.init(event: .synced(SyncReport()), waiting: 0)) == "sync: connected again")
        #expect(mark.text == "synced")
    }
}
