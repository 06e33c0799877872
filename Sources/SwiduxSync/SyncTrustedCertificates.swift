import Foundation
#if canImport(Security)
import Security
#elseif canImport(NIOSSL)
import NIOSSL
#endif

/// Certificate authorities a ``SyncClient`` trusts for an `https://` server besides the
/// system's: a server whose certificate a private or test CA signed.
///
/// ```swift
/// let trusted = try SyncTrustedCertificates(contentsOf: URL(fileURLWithPath: "/etc/swidux/ca.pem"))
/// let client = try SyncClient(database: database, server: URL(string: "https://sync.example")!, token: token,
///                             tables: tables, trustedCertificates: trusted)
/// ```
public struct SyncTrustedCertificates: Sendable, Equatable {
    /// Each certificate in DER.
    let der: [Data]

    /// The certificates of `pem`: one or more `-----BEGIN CERTIFICATE-----` blocks.
    ///
    /// ```swift
    /// let trusted = try SyncTrustedCertificates(pem: caPEM)
    /// ```
    ///
    /// - Throws: ``SyncCertificateError`` when `pem` holds no certificate, or one that
    ///   cannot be read.
    public init(pem: String) throws {
        try self.init(pem: pem, source: "the given PEM text")
    }

    /// The certificates of the PEM file at `file`.
    ///
    /// ```swift
    /// let trusted = try SyncTrustedCertificates(contentsOf: URL(fileURLWithPath: "ca.pem"))
    /// ```
    ///
    /// - Throws: ``SyncCertificateError`` naming the file when it cannot be read, holds no
    ///   certificate, or one that cannot be read.
    public init(contentsOf file: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw SyncCertificateError(description: "cannot read the CA file \(file.path): \((error as NSError).localizedDescription)")
        }
        try self.init(pem: text, source: "the CA file \(file.path)")
    }

    private init(pem: String, source: String) throws {
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        var der: [Data] = []
        var rest = pem[...]
        while let start = rest.range(of: begin) {
            guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                throw SyncCertificateError(description: "\(source) has a certificate without its \(end) line")
            }
            let base64 = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let bytes = Data(base64Encoded: String(base64)), Self.isCertificate(bytes) else {
                throw SyncCertificateError(description: "certificate \(der.count + 1) of \(source) is not a valid X.509 certificate")
            }
            der.append(bytes)
            rest = rest[stop.upperBound...]
        }
        guard !der.isEmpty else {
            throw SyncCertificateError(description: "\(source) holds no PEM certificate (a \(begin) block)")
        }
        self.der = der
    }

    private static func isCertificate(_ der: Data) -> Bool {
        #if canImport(Security)
        SecCertificateCreateWithData(nil, der as CFData) != nil
        #elseif canImport(NIOSSL)
        (try? NIOSSLCertificate(bytes: Array(der), format: .der)) != nil
        #else
        // A build without a certificate parser (the documents' type check): the TLS
        // handshake is the check.
        true
        #endif
    }
}

/// Trusted certificates that cannot be used, naming the file or text and the cause.
///
/// ```swift
/// do { _ = try SyncTrustedCertificates(pem: "") } catch { print(error) }
/// // the given PEM text holds no PEM certificate (a -----BEGIN CERTIFICATE----- block)
/// ```
public struct SyncCertificateError: Error, CustomStringConvertible {
    /// One sentence naming the certificates and the cause.
    public let description: String
}
