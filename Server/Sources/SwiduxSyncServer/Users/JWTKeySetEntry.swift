import Foundation

/// One key of a ``JWTConfiguration``'s key set: its id, the one algorithm tokens signed
/// with it may name, and the key itself as JSON (a JWK) or, for `oct`, its secret.
struct JWTKeySetEntry: Sendable {
    /// The key's `kid`; `nil` only for the single key of a one-key set.
    var id: String?
    /// `HS256`, `RS256`, `ES256`, `EdDSA`...: a token's header must name exactly this.
    var algorithm: String
    enum Material: Sendable {
        /// An HMAC secret (`oct`).
        case secret([UInt8])
        /// A public (or private) key in JWK form, for jwt-kit.
        case jwk(Data)
    }
    var material: Material

    /// The algorithms a key of each type may verify, the first being the default when the
    /// key does not state its `alg`. A key never verifies another family's algorithm: an RSA
    /// public key used as an HMAC secret is the classic forgery.
    static func algorithms(type: String, curve: String?) -> [String] {
        switch type {
        case "oct": ["HS256", "HS384", "HS512"]
        case "RSA": ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]
        case "EC":
            switch curve {
            case "P-256": ["ES256"]
            case "P-384": ["ES384"]
            case "P-521": ["ES512"]
            default: []
            }
        case "OKP": curve == "Ed25519" ? ["EdDSA"] : []
        default: []
        }
    }

    /// The entries of a JWKS document; throws naming the key (its `kid` or position) and the cause.
    static func read(_ data: Data) throws -> [JWTKeySetEntry] {
        guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let keys = document["keys"] as? [Any] else {
            throw SyncServerError("the JWT key set is not a JWKS document ({\"keys\": [...]}, RFC 7517)")
        }
        guard !keys.isEmpty else { throw SyncServerError("the JWT key set holds no key") }
        var entries: [JWTKeySetEntry] = []
        var seen: Set<String> = []
        for (index, element) in keys.enumerated() {
            guard let key = element as? [String: Any] else { throw SyncServerError("JWT key \(index + 1) is not a JSON object") }
            let id = key["kid"] as? String
            let name = id.map { "JWT key \"\($0)\"" } ?? "JWT key \(index + 1)"
            if key["kid"] != nil, id == nil { throw SyncServerError("\(name): kid is not a string") }
            if keys.count > 1, id == nil {
                throw SyncServerError("\(name) has no kid: with several keys, each needs one (tokens name theirs in their header)")
            }
            if let id, !seen.insert(id).inserted { throw SyncServerError("\(name) appears twice in the key set") }
            guard let type = key["kty"] as? String else { throw SyncServerError("\(name) has no kty") }
            let allowed = algorithms(type: type, curve: key["crv"] as? String)
            guard let first = allowed.first else {
                throw SyncServerError("\(name): key type \(type)\((key["crv"] as? String).map { " on curve \($0)" } ?? "") is not supported (oct, RSA, EC on P-256/P-384/P-521, OKP on Ed25519)")
            }
            let algorithm = (key["alg"] as? String) ?? first
            guard allowed.contains(algorithm) else {
                throw SyncServerError("\(name): alg \(algorithm) does not fit a \(type) key (\(allowed.joined(separator: ", ")))")
            }
            if let use = key["use"] as? String, use != "sig" { throw SyncServerError("\(name): use is \(use), not sig") }
            let material: Material
            if type == "oct" {
                guard let k = key["k"] as? String, let secret = base64URLDecoded(k) else {
                    throw SyncServerError("\(name): an oct key needs its secret in k (base64url)")
                }
                guard secret.count >= 32 else {
                    throw SyncServerError("\(name): the HMAC secret has \(secret.count) bytes; at least 32 are needed")
                }
                material = .secret(secret)
            } else {
                var jwk = key
                jwk["alg"] = algorithm
                jwk["kid"] = id ?? "default"
                material = .jwk(try JSONSerialization.data(withJSONObject: jwk))
            }
            entries.append(JWTKeySetEntry(id: id, algorithm: algorithm, material: material))
        }
        return entries
    }

    /// Base64url without padding (RFC 7515 §2), as JWTs and JWKs write bytes.
    static func base64URLDecoded(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}
