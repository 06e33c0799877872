#if canImport(Glibc)
import Foundation
@testable import SwiduxSync
import Testing

/// Where an HTTP answer's head ends, found in place (issue 31: `Data.range(of:)` copied
/// every answer into an `NSData` first).
@Suite("PlainHTTPClient finds the end of an answer's head")
struct PlainHTTPClientTests {
    @Test("The first \\r\\n\\r\\n, in a whole Data or in a slice; none when the head is incomplete")
    func headEnd() {
        let answer = Data("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody\r\n\r\n".utf8)
        #expect(PlainHTTPClient.headEnd(answer) == 34)
        // A slice keeps its indices: the end is an index of the slice's base.
        let slice = answer[5...]
        #expect(PlainHTTPClient.headEnd(slice) == 34)
        #expect(PlainHTTPClient.headEnd(answer[36...]) == 42)
        #expect(PlainHTTPClient.headEnd(Data("\r\n\r\n".utf8)) == 0)
        for incomplete in ["", "\r\n\r", "HTTP/1.1 200 OK\r\n", "a\r\n\rb\n\r\n"] {
            #expect(PlainHTTPClient.headEnd(Data(incomplete.utf8)) == nil, "\(incomplete.debugDescription)")
        }
    }
}
#endif
