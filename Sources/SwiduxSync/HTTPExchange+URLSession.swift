#if canImport(Darwin)
import Foundation
import Security

/// One request and its answer, on Foundation's `URLSession` (Apple platforms): the system's
/// networking, which keeps connections alive and waits without a thread.
struct HTTPExchange: Sendable {
    /// The server's base URL, named by errors.
    let server: URL
    private let session: URLSession

    init(server: URL, trusting certificates: SyncTrustedCertificates?) {
        self.server = server
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 4
        let delegate = certificates.map { TrustDelegate(anchors: $0.der) }
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Sends one request; the status, the body (refused when longer than `maxBodyBytes`) and
    /// the `Retry-After` header.
    /// Cancelling the calling task cancels it.
    func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?, timeout: Duration,
              maxBodyBytes: Int) async throws -> (status: Int, body: Data, retryAfter: String?) {
        var request = URLRequest(url: url, timeoutInterval: Double(timeout.components.seconds) + 1)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw SyncError.unreachable(server, underlying: error)
        }
        guard data.count <= maxBodyBytes else { throw SyncError.unreachable(server, underlying: HTTPFailure.tooLarge(maxBodyBytes)) }
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "Retry-After"))
    }
}

/// Accepts a server certificate that the trusted certificates (or the system) anchor.
private final class TrustDelegate: NSObject, URLSessionDelegate, Sendable {
    let anchors: [Data]

    init(anchors: [Data]) {
        self.anchors = anchors
    }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust else { return (.performDefaultHandling, nil) }
        let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        SecTrustSetAnchorCertificates(trust, certificates as CFArray)
        SecTrustSetAnchorCertificatesOnly(trust, false)
        guard SecTrustEvaluateWithError(trust, nil) else { return (.cancelAuthenticationChallenge, nil) }
        return (.useCredential, URLCredential(trust: trust))
    }
}
#endif
