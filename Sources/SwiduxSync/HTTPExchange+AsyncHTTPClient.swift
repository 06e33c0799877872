#if !canImport(Darwin)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One request and its answer, on AsyncHTTPClient (Linux): one connection pool for the
/// process, so that pushes and the long poll reuse kept-alive connections (TLS included),
/// waiting costs an event loop's `epoll` and no thread, and a released ``SyncClient`` owns
/// nothing to shut down.
struct HTTPExchange: Sendable {
    /// The server's base URL, named by errors.
    let server: URL
    /// The TLS settings of every request when certificates besides the system's are
    /// trusted; nil: the client's (the system's trust roots).
    private let tls: TLSConfiguration?

    init(server: URL, trusting certificates: SyncTrustedCertificates?) {
        self.server = server
        if let certificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            // Validated when `certificates` was made.
            let trusted = certificates.der.compactMap { try? NIOSSLCertificate(bytes: Array($0), format: .der) }
            tls.additionalTrustRoots = [.certificates(trusted)]
            self.tls = tls
        } else {
            tls = nil
        }
    }

    /// The process's client. Never shut down, like `HTTPClient.shared`: it lives as long as
    /// the process, on NIO's shared event loops, and its idle connections close by themselves.
    static let client: HTTPClient = {
        var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(20))
        // Fail at once when nothing listens: the sync loops retry on their own schedule,
        // and `todos sync` reports "connection refused" rather than a time-out.
        pool.retryConnectionEstablishment = false
        var configuration = HTTPClient.Configuration(
            // The bearer token goes to the configured server only.
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10)),
            connectionPool: pool,
            decompression: .disabled)
        configuration.httpVersion = .automatic
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Sends one request; the status, the body, which is read as it arrives and refused
    /// past `maxBodyBytes`, and the `Retry-After` header. The whole exchange, body included, ends by `timeout`; cancelling
    /// the calling task cancels it.
    func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?, timeout: Duration,
              maxBodyBytes: Int) async throws -> (status: Int, body: Data, retryAfter: String?) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            var buffer = ByteBufferAllocator().buffer(capacity: body.count)
            body.withUnsafeBytes { _ = buffer.writeBytes($0) }
            request.body = .bytes(buffer)
        }
        request.tlsConfiguration = tls
        let prepared = request, client = Self.client, server = server
        // AsyncHTTPClient's deadline ends with the answer's head; the race bounds the body too.
        return try await withThrowingTaskGroup(of: (status: Int, body: Data, retryAfter: String?)?.self) { group in
            group.addTask {
                do {
                    let response = try await client.execute(prepared, deadline: .now() + TimeAmount(timeout))
                    let data = try await Self.read(response, maxBodyBytes: maxBodyBytes)
                    return (Int(response.status.code), data, response.headers.first(name: "retry-after"))
                } catch let error as HTTPFailure {
                    throw SyncError.unreachable(server, underlying: error)
                } catch {
                    if Task.isCancelled { throw CancellationError() }
                    throw SyncError.unreachable(server, underlying: HTTPFailure(error))
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let answer = first else {
                try Task.checkCancellation()
                throw SyncError.unreachable(server, underlying: HTTPFailure.timedOut)
            }
            return answer
        }
    }

    /// The body, refused as soon as it is longer than `maxBodyBytes` (announced or received).
    private static func read(_ response: HTTPClientResponse, maxBodyBytes: Int) async throws -> Data {
        let announced = response.headers.first(name: "content-length").flatMap { Int($0) }
        if let announced, announced > maxBodyBytes { throw HTTPFailure.tooLarge(maxBodyBytes) }
        var data = Data()
        data.reserveCapacity(announced ?? 0)
        for try await buffer in response.body {
            guard data.count + buffer.readableBytes <= maxBodyBytes else { throw HTTPFailure.tooLarge(maxBodyBytes) }
            buffer.withUnsafeReadableBytes { data.append(contentsOf: $0) }
        }
        try Task.checkCancellation()
        return data
    }
}

extension HTTPFailure {
    /// The phrase for an error of AsyncHTTPClient, SwiftNIO or NIOSSL.
    init(_ error: any Error) {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                self = .timedOut
            case .remoteConnectionClosed:
                self.init("the connection was closed before the answer was complete")
            default:
                self.init("\(error)")
            }
        case let error as NIOConnectionError:
            let failures = error.connectionErrors.map(\.error)
            if failures.isEmpty {
                self.init("unknown host")
            } else {
                self.init(failures[0])
            }
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            self.init("connection refused")
        case let error as HTTPParserError:
            self.init("an answer that is not valid HTTP (\(error))")
        case let error as NIOSSLError:
            self.init(tls: "\(error)")
        case let error as BoringSSLError:
            self.init(tls: "\(error)")
        default:
            self.init("\(error)")
        }
    }

    /// The phrase for a failed TLS handshake, from its description: BoringSSL's reasons by
    /// name ("WRONG_VERSION_NUMBER"), without its error codes and the paths of its sources.
    init(tls description: String) {
        let reasons = description.components(separatedBy: "OPENSSL_internal:").dropFirst()
            .map { String($0.prefix { $0.isLetter || $0.isNumber || $0 == "_" }) }
        if reasons.contains("WRONG_VERSION_NUMBER") {
            // The answer was not TLS: most often an https:// URL given for a plain HTTP server.
            self.init("the server does not answer in TLS (https); if it serves plain HTTP, give its http:// URL")
        } else if reasons.contains("CERTIFICATE_VERIFY_FAILED") {
            self.init("TLS failed: the server's certificate is not trusted")
        } else if !reasons.isEmpty {
            self.init("TLS failed (\(reasons.joined(separator: ", ")))")
        } else {
            self.init("TLS failed, the server's certificate may not be trusted (\(description))")
        }
    }
}
#endif
