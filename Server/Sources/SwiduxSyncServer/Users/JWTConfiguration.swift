import Foundation

/// Which JSON Web Tokens the server accepts as users: the keys that sign them (a JWKS,
/// RFC 7517), and optionally the issuer and audience every token must name.
///
/// A JWT's subject (`sub`) is the user. Each user has a personal space, made on first use,
/// that only their tokens reach. Opaque tokens from `token create` keep working beside JWTs.
///
/// ```swift
/// let jwt = try JWTConfiguration(jwks: Data(contentsOf: URL(fileURLWithPath: "keys.json")),
///                                issuer: "https://auth.example.com", audience: "todos")
/// let server = SyncServer(postgres: url, port: 8080, jwt: jwt)
/// ```
///
/// The key set holds one or more keys: `oct` (an HS256 secret in `k`), `RSA` (RS256), `EC`
/// (ES256 on P-256, ES384, ES512) or `OKP` (EdDSA on Ed25519). With more than one key, each
/// needs a `kid`, and a token names the key it was signed with in its header's `kid`: two keys
/// at once let a provider rotate. A token is refused (401, with the reason) when its `alg`
/// is not its key's (`none` included), its `kid` is unknown, its signature does not verify,
/// it has no `sub` or no `exp`, it expired (`exp`) or is not yet valid (`nbf`) — both with
/// ``clockSkew`` of tolerance — or its `iss` or `aud` is not the one configured.
public struct JWTConfiguration: Sendable {
    /// The key set, as given (JSON). Read once, by the initializer, into the checked keys:
    /// a constant, so that the two cannot differ.
    public let jwks: Data
    /// The `iss` every token must have; `nil`: any.
    public var issuer: String?
    /// A value every token's `aud` must hold; `nil`: any.
    public var audience: String?
    /// How far the server's clock and the token issuer's may differ (for `exp` and `nbf`).
    public var clockSkew: Duration
    /// The keys, read from ``jwks`` (checked by the initializer).
    let keys: [JWTKeySetEntry]

    /// Reads and checks a key set.
    ///
    /// ```swift
    /// let jwt = try JWTConfiguration(jwks: Data(#"{"keys":[{"kty":"oct","kid":"1","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"}]}"#.utf8))
    /// ```
    /// - Throws: ``SyncServerError`` naming the key and what is wrong with it.
    public init(jwks: Data, issuer: String? = nil, audience: String? = nil, clockSkew: Duration = .seconds(30)) throws {
        self.jwks = jwks
        self.issuer = issuer
        self.audience = audience
        self.clockSkew = clockSkew
        self.keys = try JWTKeySetEntry.read(jwks)
    }
}
