// swift-tools-version: 6.2
// Swidux's Apple-only code, type-checked on Linux (scripts/check-snippets.sh):
// Swidux's libraries (copied from Sources/ into Library/), every Swift code block of the
// README and of the DocC catalogs (one module per document), and a project the scaffolder
// generated (Generated/, written by Checks/extract_snippets.py and the script), built with
// Checks/SwiftUIShim on their import path: `canImport(SwiftUI)` is true for them, and
// `import SwiftUI` finds the stand-in. Only these targets get the shim: dependencies that
// have SwiftUI code of their own (swift-custom-dump, swift-clocks) build as on Linux.
// Nothing here is linked or run; Library/ and Generated/ are not committed. SwiduxSync's
// Linux HTTP client (AsyncHTTPClient) is replaced by HTTPExchangeStandIn.swift.
import Foundation
import PackageDescription

let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let shim = here.deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent(".build-snippets/shim").path
let againstShim: [SwiftSetting] = [.unsafeFlags(["-I", shim])]
let snippetModules = ((try? FileManager.default.contentsOfDirectory(
    atPath: here.appendingPathComponent("Generated").path)) ?? []).sorted()

let package = Package(
    name: "SwiduxSnippets",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    ],
    targets: [
        // The libraries, with their dependencies as in the root Package.swift.
        .target(
            name: "Swidux",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            path: "Library/Swidux", swiftSettings: againstShim),
        .target(
            name: "SwiduxSQLite",
            dependencies: ["Swidux", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")],
            path: "Library/SwiduxSQLite", swiftSettings: againstShim),
        .target(name: "SwiduxSyncWire", path: "Library/SwiduxSyncWire", swiftSettings: againstShim),
        .target(
            name: "SwiduxSync",
            dependencies: [
                "Swidux", "SwiduxSQLite", "SwiduxSyncWire",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Library/SwiduxSync", swiftSettings: againstShim),
        .target(
            name: "SwiduxTesting",
            dependencies: [
                "Swidux",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
                .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
            ],
            path: "Library/SwiduxTesting", swiftSettings: againstShim),
    ] + snippetModules.map { module in
        .target(
            name: module,
            dependencies: [
                "Swidux", "SwiduxSQLite", "SwiduxTesting", "SwiduxSync", "SwiduxSyncWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Generated/\(module)", swiftSettings: againstShim)
    },
    swiftLanguageModes: [.v6]
)
