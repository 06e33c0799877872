// swift-tools-version: 6.2
import PackageDescription

// Swidux's benchmarks, a separate package so that package-benchmark never enters the
// dependency graph of Swidux's users. Run them from this directory:
//
//     swift package benchmark
//
// See README.md for the results and how each figure is measured.

let package = Package(
    name: "SwiduxBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        // The package's identity is its directory name; name it so that a clone under any name works.
        .package(name: "Swidux", path: ".."),
        // Only the MallocInterposer trait: malloc metrics without jemalloc. The default
        // RuntimeInterposer trait (ARC metrics on Linux Swift 6.3) is not needed here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Entity, state, reducer, the hand-written seed-002 AppStore, interleaved timing.
        // glibc mallinfo2, for the undo memory benchmark.
        .target(name: "CMallocInfo"),
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Swidux", package: "Swidux")]
        ),
        // The measurements that both the benchmarks and the CI speed check run: one copy of
        // each scenario, sized by the caller.
        .target(
            name: "BenchmarkScenarios",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Swidux", package: "Swidux"),
                .product(name: "SwiduxSQLite", package: "Swidux"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // The speed check `.ci/run` runs (release): short interleaved runs of the scenarios,
        // each ratio against its limit; exits non-zero on a clear regression.
        .executableTarget(
            name: "BenchmarkCheck",
            dependencies: ["BenchmarkScenarios", "BenchmarkSupport"],
            path: "Sources/BenchmarkCheck"
        ),
        benchmark("StoreDispatch"),
        benchmark("EntityStoreOps", [.product(name: "OrderedCollections", package: "swift-collections")]),
        benchmark("SQLiteFlush", [
            .product(name: "SwiduxSQLite", package: "Swidux"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        benchmark("UndoMemory", ["CMallocInfo"]),
        benchmark("RowObservation"),
        benchmark("ExternalChanges", [
            .product(name: "SwiduxSQLite", package: "Swidux"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "OrderedCollections", package: "swift-collections"),
        ]),
        benchmark("DerivedState"),
        // The main actor's longest stall at launch, synchronous against asynchronous open
        // and hydration (a measuring executable: `swift run -c release LaunchStall`).
        .executableTarget(
            name: "LaunchStall",
            dependencies: [.product(name: "SwiduxSQLite", package: "Swidux")],
            path: "Sources/LaunchStall"
        ),
        benchmark("Recording"),
        // A recorded send under a profiler (instructions per send, recording on against off):
        // `swift build -c release --product RecordingProfile`, then
        // `valgrind --tool=callgrind .build/release/RecordingProfile on 5000` (Benchmarks/README.md).
        .executableTarget(
            name: "RecordingProfile",
            dependencies: ["BenchmarkSupport", .product(name: "Swidux", package: "Swidux")],
            path: "Sources/RecordingProfile"
        ),
        // A send with undo on or off under a profiler (instructions per send):
        // `swift build -c release --product UndoProfile`, then
        // `valgrind --tool=callgrind .build/release/UndoProfile on 5000` (Benchmarks/README.md).
        .executableTarget(
            name: "UndoProfile",
            dependencies: ["BenchmarkSupport", .product(name: "Swidux", package: "Swidux")],
            path: "Sources/UndoProfile"
        ),
        // Runs the release `todos` executable of the main package (build it first).
        benchmark("TodosKeys", [.product(name: "GRDB", package: "GRDB.swift")]),
    ],
    swiftLanguageModes: [.v6]
)

/// An executable benchmark target in `Benchmarks/<name>`, run by package-benchmark's plugin.
func benchmark(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            .product(name: "Benchmark", package: "benchmark"),
            .product(name: "Swidux", package: "Swidux"),
            "BenchmarkSupport",
            "BenchmarkScenarios",
        ] + dependencies,
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}
