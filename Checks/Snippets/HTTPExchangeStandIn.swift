#if !canImport(Darwin)
import Foundation

/// SwiduxSync's HTTP exchange for the snippet check only (scripts/check-snippets.sh copies it
/// over the AsyncHTTPClient one): nothing here is linked or run, and type-checking the
/// documents' code needs SwiduxSync's API, not its Linux HTTP client, whose SwiftNIO and
/// BoringSSL would otherwise be compiled once more. Same members as the real one.
struct HTTPExchange: Sendable {
    let server: URL

    init(server: URL, trusting certificates: SyncTrustedCertificates?) {
        self.server = server
    }

    func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?, timeout: Duration,
              maxBodyBytes: Int) async throws -> (status: Int, body: Data, retryAfter: String?) {
        throw SyncError.unreachable(server, underlying: HTTPFailure.timedOut)
    }
}
#endif
