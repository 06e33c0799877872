// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Swidux",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "Swidux", targets: ["Swidux"]),
        .library(name: "SwiduxSQLite", targets: ["SwiduxSQLite"]),
        .library(name: "SwiduxTesting", targets: ["SwiduxTesting"]),
        // The sync wire format (Codable messages), shared by SwiduxSync and Server/.
        .library(name: "SwiduxSyncWire", targets: ["SwiduxSyncWire"]),
        // The sync client: keeps a SwiduxDatabase's tables in sync through swidux-sync-server.
        .library(name: "SwiduxSync", targets: ["SwiduxSync"]),
        // Child processes, loopback servers and a log capture for tests: this package's and the
        // sync server package's (Server/), which start their children with the same helper.
        .library(name: "SwiduxTestSupport", targets: ["SwiduxTestSupport"]),
        .executable(name: "swidux", targets: ["swidux"]),
        .executable(name: "todos", targets: ["todos"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
        // `swift package generate-documentation` (DocC); .ci/run builds every library's docs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // SwiduxSync's HTTP on Linux (Apple platforms use URLSession).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Child processes in the tests (SwiduxTestSupport only); swift-system for its file descriptors.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
    ],
    targets: [
        // Core: effects, reducers, Store, MVIStore, EntityStore, persistence middleware, undo.
        .target(
            name: "Swidux",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // The embedded database, on GRDB.
        .target(
            name: "SwiduxSQLite",
            dependencies: [
                "Swidux",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The sync wire format: Codable messages only, no dependency (Server/ uses it too).
        .target(name: "SwiduxSyncWire"),
        // The sync client: outbox triggers, push/pull over URLSession on Apple platforms and
        // AsyncHTTPClient on Linux (FoundationNetworking's URLSession spins a core while it waits).
        .target(
            name: "SwiduxSync",
            dependencies: [
                "Swidux", "SwiduxSQLite", "SwiduxSyncWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                // sqlite3_db_status: whether a pulled page left a foreign key unresolved.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(platforms: [.linux])),
            ]
        ),
        // TestStore, in-memory persistence backend, test clock re-export.
        .target(
            name: "SwiduxTesting",
            dependencies: [
                "Swidux",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
                // Lets reported issues reach Swift Testing / XCTest in every test target that uses SwiduxTesting.
                .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
            ]
        ),
        // The `swidux` scaffolder: logic in a library so it can be tested, a thin executable.
        .target(
            name: "SwiduxCLI",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(name: "swidux", dependencies: ["SwiduxCLI"]),
        // The example application: a terminal to-do app on the public API only.
        .target(
            name: "TodosApp",
            dependencies: [
                "Swidux", "SwiduxSQLite", "SwiduxSync", "SwiduxSyncWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // `todos replay`: each step's state difference.
                .product(name: "CustomDump", package: "swift-custom-dump"),
            ]
        ),
        .executableTarget(name: "todos", dependencies: ["TodosApp"]),
        // Child process of SwiduxSQLiteTests' crash test: writes flushes until killed.
        .executableTarget(
            name: "swidux-crash-writer",
            dependencies: ["SwiduxSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Sources/SwiduxCrashWriter"),

        .testTarget(
            name: "SwiduxTests",
            dependencies: [
                "Swidux", "SwiduxTesting", "SwiduxTestSupport",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SwiduxSQLiteTests",
            dependencies: [
                "Swidux", "SwiduxSQLite", "SwiduxTesting", "SwiduxTestSupport", "swidux-crash-writer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SwiduxTestingTests",
            dependencies: ["Swidux", "SwiduxTesting", .product(name: "Clocks", package: "swift-clocks")]
        ),
        // Loopback servers (hung, scripted, refusing), child processes and a log capture shared by the test targets, and by Server/'s.
        .target(
            name: "SwiduxTestSupport",
            dependencies: [
                "Swidux",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
            ],
            path: "Tests/SwiduxTestSupport"),
        .testTarget(
            name: "SwiduxSyncTests",
            dependencies: [
                "Swidux", "SwiduxSQLite", "SwiduxSync", "SwiduxSyncWire", "SwiduxTesting", "SwiduxTestSupport", "swidux-crash-writer",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "SwiduxCLITests", dependencies: ["SwiduxCLI", "SwiduxTestSupport"]),
        // The README's quick start, compiled and run (its files are quoted verbatim by the README).
        .testTarget(name: "QuickStartTests", dependencies: ["SwiduxSQLite", "SwiduxTesting"]),
        .testTarget(
            name: "TodosAppTests",
            dependencies: ["TodosApp", "Swidux", "SwiduxSQLite", "SwiduxTesting", "SwiduxTestSupport", "todos", .product(name: "Clocks", package: "swift-clocks")],
            // Recorded sessions (`todos --record`), replayed by RecordedSessionTests.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `SWIDUX_LIBRARIES_ONLY=1` keeps the core libraries and their tests: no sync client, apps
// or CLI, so neither SwiftNIO nor BoringSSL. .ci/run's address-sanitizer build uses it: the
// unsafe code it checks (the entity storage, the undo history) lives in these libraries, and
// the rest would more than double that instrumented build on a small machine.
// `SWIDUX_LIBRARIES_ONLY=sync` keeps the sync client and its tests as well (with SwiftNIO),
// still without the apps and the CLI: .ci/run's thread-sanitizer build, whose concurrency
// checks matter most in the sync client, and which runs no app test.
let librariesOnly = Context.environment["SWIDUX_LIBRARIES_ONLY"]
if librariesOnly == "1" || librariesOnly == "sync" {
    let withSync = librariesOnly == "sync"
    let libraries = Set(["Swidux", "SwiduxSQLite", "SwiduxTesting", "SwiduxSyncWire"] + (withSync ? ["SwiduxSync"] : []))
    let kept = libraries.union(["SwiduxTestSupport", "swidux-crash-writer", "SwiduxTests", "SwiduxSQLiteTests", "SwiduxTestingTests", "QuickStartTests"])
        .union(withSync ? ["SwiduxSyncTests"] : [])
    let unused = ["swift-argument-parser"] + (withSync ? [] : ["async-http-client", "swift-nio", "swift-nio-ssl"])
    package.products.removeAll { !libraries.contains($0.name) }
    package.targets.removeAll { !kept.contains($0.name) }
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return unused.contains { location.hasSuffix("/" + $0) }
    }
}
