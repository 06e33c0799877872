import Crypto
import CryptoExtras
import Foundation
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
import Testing

/// JSON Web Tokens as users: the keys of a JWKS, the checked claims, the personal spaces.
/// The tokens are signed here with swift-crypto, not with the library that checks them.
@Suite("JWT users")
struct JWTTests {
    // MARK: Signing

    enum Signer {
        case hmac(SymmetricKey)
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)

        var algorithm: String {
            switch self {
            case .hmac: "HS256"
            case .p256: "ES256"
            case .ed25519: "EdDSA"
            case .rsa: "RS256"
            }
        }

        /// The key's public half as a JWK (an `oct` key for HMAC).
        func jwk(kid: String?) throws -> [String: Any] {
            var key: [String: Any]
            switch self {
            case .hmac(let secret):
                key = ["kty": "oct", "k": base64URL(secret.withUnsafeBytes { Data($0) })]
            case .p256(let private_):
                let raw = private_.publicKey.rawRepresentation
                key = ["kty": "EC", "crv": "P-256", "x": base64URL(raw.prefix(32)), "y": base64URL(raw.suffix(32))]
            case .ed25519(let private_):
                key = ["kty": "OKP", "crv": "Ed25519", "x": base64URL(private_.publicKey.rawRepresentation)]
            case .rsa(let private_):
                let primitives = try private_.publicKey.getKeyPrimitives()
                key = ["kty": "RSA", "n": base64URL(primitives.modulus), "e": base64URL(primitives.publicExponent)]
            }
            if let kid { key["kid"] = kid }
            return key
        }

        func signature(_ input: Data) throws -> Data {
            switch self {
            case .hmac(let secret): Data(HMAC<SHA256>.authenticationCode(for: input, using: secret))
            case .p256(let key): try key.signature(for: input).rawRepresentation
            case .ed25519(let key): try key.signature(for: input)
            case .rsa(let key): try key.signature(for: input, padding: .insecurePKCS1v1_5).withUnsafeBytes { Data($0) }
            }
        }
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func json(_ object: [String: Any]) -> Data { try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) }

    /// A token: `claims` signed by `signer`, its header naming `kid` and `alg` (default: the signer's).
    static func token(_ claims: [String: Any], signer: Signer, kid: String?, alg: String? = nil) throws -> String {
        var header: [String: Any] = ["alg": alg ?? signer.algorithm, "typ": "JWT"]
        if let kid { header["kid"] = kid }
        let input = base64URL(json(header)) + "." + base64URL(json(claims))
        return input + "." + base64URL(try signer.signature(Data(input.utf8)))
    }

    static func keySet(_ keys: [(Signer, String?)]) throws -> Data {
        json(["keys": try keys.map { try $0.0.jwk(kid: $0.1) }])
    }

    /// Claims of `subject`, valid for an hour from now.
    static func claims(_ subject: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        let now = Date().timeIntervalSince1970
        return ["sub": subject, "exp": Int(now) + 3600, "iat": Int(now)].merging(extra) { $1 }
    }

    let hmac = Signer.hmac(SymmetricKey(size: .bits256))

    // MARK: Tests

    @Test("an HS256 user reads and writes a personal space that another user and opaque tokens never see", .timeLimit(.minutes(2)))
    func personalSpaces() async throws {
        let jwt = try JWTConfiguration(jwks: try Self.keySet([(hmac, "k1")]), issuer: "https://auth.example", audience: "todos")
        try await TestServer.with(jwt: jwt) { server in
            let valid: [String: Any] = ["iss": "https://auth.example", "aud": "todos"]
            let alice = SyncHTTP(base: server.url, token: try Self.token(Self.claims("alice", valid), signer: hmac, kid: "k1"))
            let bob = SyncHTTP(base: server.url, token: try Self.token(Self.claims("bob", valid), signer: hmac, kid: "k1"))
            try await alice.declare(["todo"])
            try await bob.declare(["todo"])
            _ = try await alice.push([todo("alice's")])
            _ = try await bob.push([todo("bob's")])
            #expect(try await alice.pullAll().map(\.id) == [.text("alice's")])
            #expect(try await bob.pullAll().map(\.id) == [.text("bob's")])
            // Another token of alice (another device) reaches the same space.
            let aliceAgain = SyncHTTP(base: server.url, token: try Self.token(Self.claims("alice", valid.merging(["aud": ["other", "todos"]]) { $1 }),
                                                                               signer: hmac, kid: "k1"))
            #expect(try await aliceAgain.pullAll().map(\.id) == [.text("alice's")])
            // Opaque tokens keep working beside JWTs, in their own spaces.
            let family = try await server.client(space: "family", tables: ["todo"])
            _ = try await family.push([todo("family's")])
            #expect(try await family.pullAll().map(\.id) == [.text("family's")])
            let rows = try await server.storedRows()
            let stored = rows.map { $0.split(separator: "|").prefix(2).joined(separator: "|") }.sorted()
            #expect(stored == ["family|todo", "user:alice|todo", "user:bob|todo"], "\(rows)")
            // No operator token opens a personal space.
            await #expect(throws: (any Error).self) { try await server.token(space: "user:alice") }
        }
    }

    @Test("invalid tokens get 401 naming the cause, and change nothing", .timeLimit(.minutes(2)))
    func refusals() async throws {
        let other = Signer.hmac(SymmetricKey(size: .bits256))
        let jwt = try JWTConfiguration(jwks: try Self.keySet([(hmac, "k1")]), issuer: "https://auth.example", audience: "todos",
                                       clockSkew: .zero)
        try await TestServer.with(jwt: jwt) { server in
            let valid: [String: Any] = ["iss": "https://auth.example", "aud": "todos"]
            let now = Int(Date().timeIntervalSince1970)
            let none = Self.base64URL(Self.json(["alg": "none", "kid": "k1"])) + "." + Self.base64URL(Self.json(Self.claims("eve", valid))) + "."
            let cases: [(String, String, String)] = [
                ("expired", try Self.token(Self.claims("eve", valid.merging(["exp": now - 60]) { $1 }), signer: hmac, kid: "k1"), "expired"),
                ("not yet valid", try Self.token(Self.claims("eve", valid.merging(["nbf": now + 600]) { $1 }), signer: hmac, kid: "k1"), "not valid before"),
                ("no exp", try Self.token(["sub": "eve", "iss": "https://auth.example", "aud": "todos"], signer: hmac, kid: "k1"), "no exp"),
                ("wrong audience", try Self.token(Self.claims("eve", valid.merging(["aud": "billing"]) { $1 }), signer: hmac, kid: "k1"), "audience"),
                ("no audience", try Self.token(Self.claims("eve", ["iss": "https://auth.example"]), signer: hmac, kid: "k1"), "audience"),
                ("wrong issuer", try Self.token(Self.claims("eve", valid.merging(["iss": "https://evil.example"]) { $1 }), signer: hmac, kid: "k1"), "issuer"),
                ("wrong key", try Self.token(Self.claims("eve", valid), signer: other, kid: "k1"), "signature"),
                ("unknown kid", try Self.token(Self.claims("eve", valid), signer: hmac, kid: "k9"), "kid"),
                ("alg none", none, "alg none"),
                ("another alg", try Self.token(Self.claims("eve", valid), signer: hmac, kid: "k1", alg: "HS512"), "alg HS512"),
                ("no sub", try Self.token(["exp": now + 600, "iss": "https://auth.example", "aud": "todos"], signer: hmac, kid: "k1"), "no sub"),
                ("tampered", String(try Self.token(Self.claims("eve", valid), signer: hmac, kid: "k1").dropLast(2)) + "AA", "signature"),
            ]
            let before = try await server.snapshot()
            for (name, token, reason) in cases {
                let client = SyncHTTP(base: server.url, token: token)
                let answer = try await client.raw("PUT", SyncProtocol.tablesPath, body: try JSONEncoder().encode(TablesRequest(tables: ["todo"])))
                #expect(answer.status == 401, "\(name): \(answer.status)")
                #expect(answer.error?.contains(reason) == true, "\(name): \(answer.error ?? "no error")")
                let pull = try await client.pullAnswer()
                #expect(pull.status == 401, "\(name): pull answered \(pull.status)")
            }
            #expect(try await server.snapshot() == before)
        }
    }

    @Test("two keys at once (rotation): ES256, EdDSA and RS256 tokens name theirs by kid", .timeLimit(.minutes(2)))
    func rotation() async throws {
        let old = Signer.p256(P256.Signing.PrivateKey())
        let new = Signer.ed25519(Curve25519.Signing.PrivateKey())
        let rsa = Signer.rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        let jwt = try JWTConfiguration(jwks: try Self.keySet([(old, "2025"), (new, "2026"), (rsa, "rsa")]))
        try await TestServer.with(jwt: jwt) { server in
            let before = SyncHTTP(base: server.url, token: try Self.token(Self.claims("carol"), signer: old, kid: "2025"))
            try await before.declare(["todo"])
            _ = try await before.push([todo("signed by the old key")])
            let after = SyncHTTP(base: server.url, token: try Self.token(Self.claims("carol"), signer: new, kid: "2026"))
            #expect(try await after.pullAll().map(\.id) == [.text("signed by the old key")])
            let third = SyncHTTP(base: server.url, token: try Self.token(Self.claims("carol"), signer: rsa, kid: "rsa"))
            #expect(try await third.pullAll().map(\.id) == [.text("signed by the old key")])
            // A token that names one key but is signed by another is refused.
            let mixed = SyncHTTP(base: server.url, token: try Self.token(Self.claims("carol"), signer: new, kid: "2025", alg: "EdDSA"))
            let answer = try await mixed.pullAnswer()
            #expect(answer.status == 401)
            #expect(answer.error?.contains("alg EdDSA") == true, "\(answer.error ?? "")")
            // With several keys, a token must name its key.
            let unnamed = SyncHTTP(base: server.url, token: try Self.token(Self.claims("carol"), signer: new, kid: nil))
            #expect(try await unnamed.pullAnswer().error?.contains("no kid") == true)
        }
    }

    @Test("a long poll ends with 401 when its JWT expires while it waits", .timeLimit(.minutes(1)))
    func expiryDuringPoll() async throws {
        let jwt = try JWTConfiguration(jwks: try Self.keySet([(hmac, nil)]), clockSkew: .zero)
        try await TestServer.with(jwt: jwt) { server in
            let expiry = Int(Date().timeIntervalSince1970) + 3
            let client = SyncHTTP(base: server.url, token: try Self.token(["sub": "dave", "exp": expiry], signer: hmac, kid: nil))
            try await client.declare(["todo"])
            let cursor = try await client.pull().cursor
            let answer = try await client.pullAnswer(after: cursor, wait: 25)
            #expect(answer.status == 401, "\(answer.status)")
            #expect(answer.error?.contains("expired") == true, "\(answer.error ?? "")")
        }
    }

    @Test("a server without --jwt-keys says a JWT is not accepted")
    func jwtWithoutKeys() async throws {
        try await TestServer.with { server in
            let answer = try await SyncHTTP(base: server.url, token: try Self.token(Self.claims("alice"), signer: hmac, kid: nil)).pullAnswer()
            #expect(answer.status == 401)
            #expect(answer.error?.contains("--jwt-keys") == true, "\(answer.error ?? "")")
        }
    }

    @Test("a key set that cannot be used is refused, naming the key and the cause")
    func badKeySets() throws {
        let rsaLike: [String: Any] = ["kty": "RSA", "kid": "r", "alg": "HS256", "n": "AQAB", "e": "AQAB"]
        let cases: [(Data, String)] = [
            (Data("not json".utf8), "not a JWKS"),
            (Self.json(["keys": []]), "no key"),
            (Self.json(["keys": [["kty": "oct", "k": Self.base64URL(Data(repeating: 1, count: 32))],
                                 ["kty": "oct", "kid": "b", "k": Self.base64URL(Data(repeating: 2, count: 32))]]]), "has no kid"),
            (Self.json(["keys": [rsaLike]]), "alg HS256 does not fit a RSA key"),
            (Self.json(["keys": [["kty": "oct", "kid": "short", "k": Self.base64URL(Data("secret".utf8))]]]), "at least 32"),
            (Self.json(["keys": [["kty": "EC", "kid": "k", "crv": "P-192"]]]), "not supported"),
            (Self.json(["keys": [["kty": "oct", "kid": "a", "alg": "none", "k": Self.base64URL(Data(repeating: 1, count: 32))]]]), "alg none"),
        ]
        for (document, reason) in cases {
            #expect {
                try JWTConfiguration(jwks: document)
            } throws: { error in
                "\(error)".contains(reason)
            }
        }
    }
}
