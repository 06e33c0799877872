@_exported import SwiduxSyncWire

// What SwiduxSyncWire.md's example assumes: the client's id.
struct SnippetContext {
    let clientID: String
}
