@_exported import SwiduxSyncWire
import Foundation

// What SwiduxSyncWire.md's examples assume: the client's id, an answer's body.
struct SnippetContext {
    let clientID: String
    let body: Data
}
