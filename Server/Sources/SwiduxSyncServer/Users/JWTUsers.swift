import Foundation
import JWTKit

/// Checks JSON Web Tokens against a ``JWTConfiguration`` and names their user (`sub`).
///
/// Every key verifies in a collection of its own, chosen here by the token's `kid`, so that a
/// token is checked with exactly the key it names and only with that key's algorithm — never
/// with a default key or by trying every key.
///
/// ```swift
/// let users = try await JWTUsers(configuration: jwt)
/// let subject = try await users.subject(of: token)   // or RequestFailure 401 with the reason
/// ```
final class JWTUsers: Sendable {
    private struct Key: Sendable {
        var entry: JWTKeySetEntry
        var verifier: JWTKeyCollection
    }

    /// The claims the server reads; each is checked here (not by jwt-kit) so that a refusal
    /// names its cause.
    private struct Claims: JWTPayload {
        var sub: SubjectClaim?
        var exp: ExpirationClaim?
        var nbf: NotBeforeClaim?
        var iss: IssuerClaim?
        var aud: AudienceClaim?

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    private let keys: [Key]
    private let configuration: JWTConfiguration

    init(configuration: JWTConfiguration) async throws {
        self.configuration = configuration
        var keys: [Key] = []
        for entry in configuration.keys {
            let verifier = JWTKeyCollection()
            switch entry.material {
            case .secret(let secret):
                let digest: DigestAlgorithm = switch entry.algorithm {
                case "HS384": .sha384
                case "HS512": .sha512
                default: .sha256
                }
                await verifier.add(hmac: HMACKey(from: secret), digestAlgorithm: digest)
            case .jwk(let json):
                do {
                    try await verifier.add(jwk: JSONDecoder().decode(JWK.self, from: json))
                } catch {
                    throw SyncServerError("JWT key \(entry.id.map { "\"\($0)\"" } ?? "1") is not a usable \(entry.algorithm) key: \(error)")
                }
            }
            keys.append(Key(entry: entry, verifier: verifier))
        }
        self.keys = keys
    }

    /// Whether `token` has a JWT's shape (three base64url parts): opaque tokens never do.
    static func isJWT(_ token: String) -> Bool {
        token.utf8.lazy.filter { $0 == UInt8(ascii: ".") }.count == 2
    }

    /// The user `token` names, after checking its key, algorithm, signature and claims.
    /// - Throws: ``RequestFailure`` 401 naming the cause.
    func subject(of token: String, now: Date = Date()) async throws -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = JWTKeySetEntry.base64URLDecoded(String(parts[0])),
              let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw RequestFailure.unauthorized("invalid JWT: its header is not base64url JSON")
        }
        guard let algorithm = header.alg else { throw RequestFailure.unauthorized("invalid JWT: its header names no alg") }
        let key: Key
        if let kid = header.kid {
            guard let found = keys.first(where: { $0.entry.id == kid }) else {
                throw RequestFailure.unauthorized("invalid JWT: its kid \"\(kid)\" is none of the server's keys (--jwt-keys)")
            }
            key = found
        } else {
            guard keys.count == 1 else {
                throw RequestFailure.unauthorized("invalid JWT: its header names no kid, and the server has \(keys.count) keys")
            }
            key = keys[0]
        }
        guard algorithm == key.entry.algorithm else {
            throw RequestFailure.unauthorized("invalid JWT: its alg \(algorithm) is not its key's \(key.entry.algorithm)")
        }
        let claims: Claims
        do {
            claims = try await key.verifier.verify(token, as: Claims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw RequestFailure.unauthorized("invalid JWT: its signature does not verify with the server's key\(key.entry.id.map { " \"\($0)\"" } ?? "")")
        } catch {
            throw RequestFailure.unauthorized("invalid JWT: \((error as? JWTError)?.reason ?? "\(error)")")
        }
        let skew = TimeInterval(configuration.clockSkew.components.seconds)
        guard let expiry = claims.exp?.value else { throw RequestFailure.unauthorized("invalid JWT: it has no exp (expiry)") }
        guard now.timeIntervalSince(expiry) < skew else {
            throw RequestFailure.unauthorized("the JWT expired at \(expiry.formatted(.iso8601))")
        }
        if let start = claims.nbf?.value, start.timeIntervalSince(now) > skew {
            throw RequestFailure.unauthorized("the JWT is not valid before \(start.formatted(.iso8601))")
        }
        if let issuer = configuration.issuer, claims.iss?.value != issuer {
            throw RequestFailure.unauthorized("the JWT's issuer \(claims.iss.map { "\"\($0.value)\"" } ?? "(none)") is not \"\(issuer)\"")
        }
        if let audience = configuration.audience, claims.aud?.value.contains(audience) != true {
            throw RequestFailure.unauthorized("the JWT's audience \(claims.aud.map { "\($0.value)" } ?? "(none)") does not include \"\(audience)\"")
        }
        guard let subject = claims.sub?.value, !subject.isEmpty else {
            throw RequestFailure.unauthorized("invalid JWT: it has no sub (the user)")
        }
        guard subject.utf8.count <= UserSpaces.maxSubjectBytes, !subject.utf8.contains(0) else {
            throw RequestFailure.unauthorized("invalid JWT: its sub has more than \(UserSpaces.maxSubjectBytes) bytes or a NUL")
        }
        return subject
    }
}
