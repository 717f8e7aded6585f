// swift-tools-version:6.1
import PackageDescription

/// The replay's modules are compiled optimised in debug builds too: `swift test`, `swift run
/// fetchlab demo` and the tests' runs of the binary spend most of their time replaying, which
/// unoptimised Swift does 5–20× slower. The answers are the same bytes either way (the
/// reference check `Tests/Reference/compare-json.sh --check` runs on the debug build in CI).
/// `-enable-testing` still applies, so `@testable import` works. SwiftPM refuses unsafe flags in a
/// package that another depends on by version: such a package builds FetchLab with
/// `FETCHLAB_PLAIN_DEBUG=1` in the environment (no flags; debug builds then replay unoptimised), or
/// depends on it by path, branch or revision.
let optimizedInDebug: [SwiftSetting] =
    Context.environment["FETCHLAB_PLAIN_DEBUG"] == "1" ? [] : [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "FetchLab",
    platforms: [.macOS(.v13)],
    products: [
        .library(
            name: "FetchLab",
            targets: [
                "FetchLabCore", "FetchLabIngest", "FetchLabStore", "FetchLabSynth", "FetchLabPredict",
                "FetchLabDatasets", "FetchLabResults", "FetchLabReport", "FetchLabSimulation", "FetchLabWorkflows",
                "FetchLabScale", "FetchLabTerminal",
            ]),
        .executable(name: "fetchlab", targets: ["fetchlab"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-system", exact: "1.8.1"),
        .package(url: "https://github.com/apple/swift-collections", exact: "1.6.0"),
        // `swift package generate-documentation` (the DocC catalogues in Sources/*/*.docc); not linked into anything.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            // libsqlite3-dev: GRDB links the system SQLite (GRDBSQLite); named here so that a missing
            // library points at both packages.
            providers: [.apt(["zlib1g-dev", "libsqlite3-dev"]), .brew(["zlib", "sqlite"])]
        ),
        .target(name: "FetchLabCore", swiftSettings: optimizedInDebug),
        .target(
            name: "FetchLabIngest",
            dependencies: [
                // The report model: the import summary's figures and the formats' names.
                "FetchLabCore", "FetchLabResults", "CZlib",
                // The sqlite3 C API only (knowledgeC.db), not GRDB.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "FetchLabStore",
            dependencies: [
                // The report model it stores (runs), not the simulator that produces it.
                "FetchLabCore", "FetchLabIngest", "FetchLabResults",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .target(name: "FetchLabSynth", dependencies: ["FetchLabCore"]),
        .target(
            name: "FetchLabDatasets",
            dependencies: ["FetchLabCore", "FetchLabIngest", "FetchLabResults", "FetchLabSynth", "FetchLabScale"]),
        // The predictors, the planning and the evaluation; the reports they make (prediction,
        // evaluation, description) are values of FetchLabResults.
        .target(
            name: "FetchLabPredict", dependencies: ["FetchLabCore", "FetchLabResults"], swiftSettings: optimizedInDebug),
        // What a run produced and the settings it ran under: the report model that the simulator
        // writes, the store keeps and the report renders (the recommendation and budget figures'
        // types included), and the prediction, evaluation and description reports.
        .target(name: "FetchLabResults", dependencies: ["FetchLabCore"], swiftSettings: optimizedInDebug),
        .target(
            name: "FetchLabSimulation", dependencies: ["FetchLabCore", "FetchLabPredict", "FetchLabResults"],
            swiftSettings: optimizedInDebug),
        .target(
            name: "FetchLabReport",
            dependencies: ["FetchLabCore", "FetchLabResults"]),
        // Scale-out at the edge: records kept in temporary files for a run's later passes (the record
        // store's file implementation, the history codec), the one atomic file writer, and what fails
        // there (ScaleError).
        .target(
            name: "FetchLabScale",
            dependencies: ["FetchLabCore", "FetchLabIngest", "FetchLabResults", "FetchLabSimulation"]),
        // What a command does, without its options or its output: the CLI and any other front end
        // (a notebook through the library, a fleet driver) call the same workflows.
        .target(
            name: "FetchLabWorkflows",
            dependencies: [
                "FetchLabCore", "FetchLabIngest", "FetchLabStore", "FetchLabPredict", "FetchLabResults",
                "FetchLabSimulation", "FetchLabScale", "FetchLabSynth", "FetchLabDatasets",
            ]),
        // A front end's terminal: one-line messages on stderr, the progress bar, output that must be
        // written, and cleanup on a signal.
        .target(name: "FetchLabTerminal", dependencies: ["FetchLabReport"]),
        .executableTarget(
            name: "fetchlab",
            dependencies: [
                "FetchLabCore", "FetchLabIngest", "FetchLabStore", "FetchLabSynth", "FetchLabPredict",
                "FetchLabDatasets", "FetchLabResults", "FetchLabReport", "FetchLabSimulation", "FetchLabWorkflows",
                "FetchLabScale", "FetchLabTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "_FetchLabTestSupport",
            dependencies: ["FetchLabCore", "FetchLabResults", .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        .testTarget(name: "FetchLabCoreTests", dependencies: ["FetchLabCore", "_FetchLabTestSupport"]),
        .testTarget(
            name: "FetchLabScaleTests",
            dependencies: [
                "FetchLabScale", "FetchLabSimulation", "FetchLabResults", "FetchLabCore", "_FetchLabTestSupport",
            ]),
        .testTarget(
            name: "FetchLabIngestTests",
            dependencies: [
                "FetchLabIngest", "FetchLabResults", "FetchLabCore", "_FetchLabTestSupport",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            exclude: ["Resources"]
        ),
        .testTarget(
            name: "FetchLabStoreTests",
            dependencies: [
                "FetchLabResults",
                "FetchLabStore", "FetchLabIngest", "FetchLabSimulation", "FetchLabCore", "_FetchLabTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "FetchLabSynthTests",
            dependencies: ["FetchLabSynth", "FetchLabDatasets", "FetchLabCore", "_FetchLabTestSupport"]),
        .testTarget(
            name: "FetchLabPredictTests",
            dependencies: [
                "FetchLabResults", "FetchLabPredict", "FetchLabSynth", "FetchLabCore", "_FetchLabTestSupport",
            ]),
        .testTarget(
            name: "FetchLabReportTests",
            dependencies: [
                "FetchLabResults",
                "FetchLabReport", "FetchLabPredict", "FetchLabSimulation", "FetchLabCore", "FetchLabIngest",
                "FetchLabStore", "_FetchLabTestSupport",
            ]),
        .testTarget(
            name: "FetchLabResultsTests", dependencies: ["FetchLabResults", "FetchLabCore", "_FetchLabTestSupport"]),
        .testTarget(
            name: "FetchLabSimulationTests",
            dependencies: [
                "FetchLabResults", "FetchLabSimulation", "FetchLabReport", "FetchLabCore", "FetchLabSynth",
                "_FetchLabTestSupport", "FetchLabScale",
            ]),
        .testTarget(
            name: "FetchLabWorkflowsTests",
            dependencies: [
                "FetchLabResults",
                "FetchLabWorkflows", "FetchLabStore", "FetchLabSimulation", "FetchLabCore", "_FetchLabTestSupport",
                "FetchLabScale",
                "FetchLabSynth", "FetchLabDatasets",
            ]),
        .testTarget(
            name: "FetchLabCLITests",
            dependencies: [
                "FetchLabResults",
                "fetchlab", "FetchLabCore", "FetchLabStore", "FetchLabSimulation", "_FetchLabTestSupport",
                "FetchLabTerminal",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
