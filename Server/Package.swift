// swift-tools-version: 6.2
import PackageDescription

// The Swidux sync server: a separate package, so that apps using
// Swidux never resolve the server's dependencies (SwiftNIO, Hummingbird, postgres-nio).
// Build and test it from the repository root:
//
//     swift build --package-path Server
//     swift test --package-path Server
//
// See the README's "Sync server" section for running it against a real PostgreSQL.

let package = Package(
    name: "SwiduxSyncServer",
    // macOS 15: Synchronization's `Mutex`, the server's one lock.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "swidux-sync-server", targets: ["swidux-sync-server"]),
        .library(name: "SwiduxSyncServer", targets: ["SwiduxSyncServer"]),
    ],
    dependencies: [
        // The package's identity is its directory name; name it so that a clone under any name works.
        .package(name: "Swidux", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // SHA-256 of a pushed mutation (already built for postgres-nio's authentication).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Only for the client end-to-end tests (reading the clients' SQLite files); the same
        // GRDB the main package resolves.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Test certificates (a CA and a server certificate) for the https tests, made in the tests.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Users from the app's identity provider: JSON Web Tokens checked against a JWKS.
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        // What the server counts, served as Prometheus text (`serve --metrics-port`).
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // The server: schema, tokens, push, pull, long poll, HTTP routes. A library so that
        // the tests and the benchmark can run it in-process.
        .target(
            name: "SwiduxSyncServer",
            dependencies: [
                .product(name: "SwiduxSyncWire", package: "Swidux"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // `serve --tls-certificate --tls-key`: https without a proxy in front.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The command line: `serve`, `token create`, `token revoke`.
        .executableTarget(
            name: "swidux-sync-server",
            dependencies: [
                "SwiduxSyncServer",
                .product(name: "SwiduxSyncWire", package: "Swidux"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Throwaway PostgreSQL clusters and the server as a child process, for the tests and the
        // benchmarks; child processes come from the main package's test support (one for both).
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SwiduxTestSupport", package: "Swidux"),
            ],
            path: "Tests/PostgresTestSupport"
        ),
        // Server apply throughput vs raw postgres-nio inserts (Benchmarks/README.md).
        .executableTarget(
            name: "swidux-sync-bench",
            dependencies: [
                "SwiduxSyncServer", "PostgresTestSupport",
                .product(name: "SwiduxSyncWire", package: "Swidux"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Devices per server (issue 31 item 5): real server processes, thousands of long polls on
        // their own connections and pushers (Benchmarks/README.md, "Devices per server").
        .executableTarget(
            name: "swidux-sync-load",
            dependencies: [
                "SwiduxSyncServer", "PostgresTestSupport",
                .product(name: "SwiduxSyncWire", package: "Swidux"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SwiduxSyncServerTests",
            dependencies: [
                "SwiduxSyncServer", "PostgresTestSupport", "swidux-sync-server",
                .product(name: "SwiduxSyncWire", package: "Swidux"),
                .product(name: "SwiduxTesting", package: "Swidux"),
                .product(name: "SwiduxTestSupport", package: "Swidux"),
                // The sync server embedded in an application of the test's own (EmbeddingTests).
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // The JWT tests sign their tokens with swift-crypto itself, not with the
                // library the server checks them with.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // SwiduxSync clients through the real server and PostgreSQL: convergence, a duplicated
        // push, two `todos` processes (the main package's executable: `swift build --product
        // todos` at the root first, or SWIDUX_TODOS).
        .testTarget(
            name: "SwiduxSyncEndToEndTests",
            dependencies: [
                // SwiduxSyncServer: a server with rules in the test's process (TodosRulesTests).
                "PostgresTestSupport", "swidux-sync-server", "SwiduxSyncServer",
                .product(name: "SwiduxSync", package: "Swidux"),
                .product(name: "SwiduxSQLite", package: "Swidux"),
                .product(name: "SwiduxSyncWire", package: "Swidux"),
                .product(name: "SwiduxTesting", package: "Swidux"),
                .product(name: "SwiduxTestSupport", package: "Swidux"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // A CA and a server certificate made by the https tests.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // Client figures: flush → other client's store latency, first sync of 100,000 rows
        // (Benchmarks/README.md, "Sync").
        .executableTarget(
            name: "swidux-sync-client-bench",
            dependencies: [
                "PostgresTestSupport",
                .product(name: "SwiduxSync", package: "Swidux"),
                .product(name: "SwiduxSQLite", package: "Swidux"),
            ]
        ),
        // A first sync at scale ÷ a local read of the same rows (issue 31; Benchmarks/README.md, "Sync").
        .executableTarget(
            name: "swidux-sync-first-sync-bench",
            dependencies: [
                "SwiduxSyncServer", "PostgresTestSupport",
                .product(name: "SwiduxSync", package: "Swidux"),
                .product(name: "SwiduxSQLite", package: "Swidux"),
                .product(name: "SwiduxTestSupport", package: "Swidux"),
                .product(name: "Swidux", package: "Swidux"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
