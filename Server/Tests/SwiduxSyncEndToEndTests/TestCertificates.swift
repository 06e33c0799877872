import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway certificate authority and a server certificate it signed for 127.0.0.1 and
/// `localhost`, made fresh by each test (nothing secret is committed), written as PEM files.
///
/// ```swift
/// let certificates = try TestCertificates(directory: directory)
/// let server = try await ServerProcess.start(postgres: url, arguments: certificates.serveArguments)
/// // a client trusting certificates.caFile reaches https://127.0.0.1:<port>
/// ```
struct TestCertificates: Sendable {
    /// The CA's certificate (PEM): what a client is told to trust.
    let caFile: URL
    /// The server's certificate (PEM), signed by the CA.
    let certificateFile: URL
    /// The server's private key (PEM, PKCS #8).
    let keyFile: URL

    /// `serve`'s options for https with these files.
    var serveArguments: [String] { ["--tls-certificate", certificateFile.path, "--tls-key", keyFile.path] }

    /// Makes a CA, named `caName`, and a server certificate, and writes them into `directory`.
    init(directory: URL, caName: String = "Swidux test CA") throws {
        let caKey = P256.Signing.PrivateKey()
        let ca = try DistinguishedName { CommonName(caName) }
        // Valid from an hour ago, so that a verifying clock a little behind this one still accepts them.
        let now = Date()
        let caCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: ca, subject: ca,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let serverCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: ca,
            subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        caFile = directory.appendingPathComponent("ca.pem")
        certificateFile = directory.appendingPathComponent("server.pem")
        keyFile = directory.appendingPathComponent("server-key.pem")
        try caCertificate.serializeAsPEM().pemString.write(to: caFile, atomically: true, encoding: .utf8)
        try serverCertificate.serializeAsPEM().pemString.write(to: certificateFile, atomically: true, encoding: .utf8)
        try serverKey.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
    }
}
