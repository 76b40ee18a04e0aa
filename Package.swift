// swift-tools-version:6.0
import PackageDescription

/// Every Swift target builds with the same settings: Swift 6 language mode
/// (strict concurrency checking) and explicit `any` for existentials.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Tickwire",
    products: [
        .library(name: "Tickwire", targets: ["Tickwire"]),
        .library(name: "TickwireWebSocket", targets: ["TickwireWebSocket"]),
        .executable(name: "tickwire", targets: ["tickwire"]),
        .executable(name: "arena", targets: ["ArenaCommand"]),
    ],
    targets: [
        // C libraries and shims.
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // WebSocket masking with AVX2 where the CPU has it (chosen at run time).
        .target(name: "CWebSocketMask", path: "Sources/CWebSocketMask"),

        // Swift layers.
        .target(name: "TickwireZlib", dependencies: ["CZlib"], swiftSettings: strictSettings),
        .target(name: "TickwireCodec", dependencies: ["TickwireZlib"], swiftSettings: strictSettings),
        .target(
            name: "TickwireWebSocket",
            dependencies: [
                "TickwireZlib", "CWebSocketMask", .target(name: "CEpoll", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TickwireSim",
            dependencies: ["TickwireCodec", "TickwireWebSocket"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Tickwire",
            dependencies: ["TickwireCodec", "TickwireWebSocket", "TickwireSim"],
            swiftSettings: strictSettings
        ),

        // Argument parsing shared by the executables (not a product).
        .target(name: "CommandLineSupport", swiftSettings: strictSettings),

        // The demo: a terminal arena built on the public API alone.
        .target(name: "ArenaGame", dependencies: ["Tickwire", "CommandLineSupport"], swiftSettings: strictSettings),
        .executableTarget(name: "ArenaCommand", dependencies: ["ArenaGame", "CommandLineSupport", "Tickwire"], swiftSettings: strictSettings),

        // Tools.
        .executableTarget(
            name: "tickwire",
            dependencies: ["Tickwire", "TickwireCodec", "TickwireSim", "TickwireWebSocket", "TickwireZlib", "CommandLineSupport", "ArenaGame"],
            path: "Tools/tickwire",
            swiftSettings: strictSettings
        ),

        // Tests.
        .testTarget(name: "TickwireZlibTests", dependencies: ["TickwireZlib"], swiftSettings: strictSettings),
        // Fixtures are read through #filePath, not bundled as resources.
        .testTarget(name: "TickwireCodecTests", dependencies: ["TickwireCodec"], exclude: ["Fixtures"], swiftSettings: strictSettings),
        .testTarget(name: "TickwireWebSocketTests", dependencies: ["TickwireWebSocket", "TickwireCodec"], swiftSettings: strictSettings),
        .testTarget(name: "TickwireSimTests", dependencies: ["TickwireSim"], swiftSettings: strictSettings),
        .testTarget(name: "TickwireTests", dependencies: ["Tickwire"], swiftSettings: strictSettings),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport"], swiftSettings: strictSettings),
        .testTarget(name: "ArenaGameTests", dependencies: ["ArenaGame"], swiftSettings: strictSettings),
    ]
)
