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
        // OpenSSL 3 for wss:// (TLS), with a shim for the calls that are C macros.
        .systemLibrary(
            name: "CTLS",
            path: "Sources/CTLS",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // WebSocket masking with AVX2 where the CPU has it (chosen at run time).
        .target(name: "CWebSocketMask", path: "Sources/CWebSocketMask"),

        // Swift layers.
        // Small shared utilities every layer may use: SplitMix64, the reconnect policy, the metrics
        // registry and Prometheus writer, the monotonic clock reading, the logging seam, the version.
        .target(name: "TickwireFoundation", swiftSettings: strictSettings),
        .target(name: "TickwireZlib", dependencies: ["CZlib"], swiftSettings: strictSettings),
        .target(name: "TickwireCodec", dependencies: ["TickwireZlib", "TickwireFoundation"], swiftSettings: strictSettings),
        // The event loop, pollers, sockets, timers and TCP channels; knows no WebSocket. Not a
        // product: TickwireWebSocket re-exports it (its public API speaks of `EventLoop`,
        // `SocketAddress` and `SystemError`), and its loop-thread API is `package`.
        .target(
            name: "TickwireIO",
            dependencies: ["TickwireFoundation", .target(name: "CEpoll", condition: .when(platforms: [.linux])), "CTLS"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TickwireWebSocket",
            dependencies: ["TickwireFoundation", "TickwireIO", "TickwireZlib", "CWebSocketMask"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TickwireSim",
            dependencies: ["TickwireFoundation", "TickwireCodec", "TickwireIO", "TickwireWebSocket"],
            swiftSettings: strictSettings
        ),
        // A fleet's room directory on Redis: our own RESP2 client on the event loop (no C dependency).
        .target(
            name: "TickwireRedis",
            dependencies: ["TickwireFoundation", "TickwireCodec", "TickwireIO", "TickwireWebSocket", "TickwireSim"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Tickwire",
            dependencies: [
                "TickwireFoundation", "TickwireZlib", "TickwireCodec", "TickwireIO", "TickwireWebSocket", "TickwireSim",
                "TickwireRedis",
            ],
            swiftSettings: strictSettings
        ),

        // Argument parsing shared by the executables (not a product).
        .target(name: "CommandLineSupport", swiftSettings: strictSettings),

        // The demo: a terminal arena built on the public API alone.
        // Web/ holds the browser client (plain JavaScript, tested with node --test by Tools/suites/javascript);
        // only Web/EmbeddedWebFiles.swift (its files as Swift source, written by Tools/embed-web) is compiled.
        .target(
            name: "ArenaGame", dependencies: ["Tickwire", "CommandLineSupport"],
            exclude: ["Web/README.md", "Web/package.json", "Web/index.html", "Web/tickwire", "Web/arena"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ArenaCommand", dependencies: ["ArenaGame", "CommandLineSupport", "Tickwire"], swiftSettings: strictSettings),

        // Tools.
        .executableTarget(
            name: "tickwire",
            dependencies: [
                "Tickwire", "TickwireFoundation", "TickwireCodec", "TickwireSim", "TickwireWebSocket", "TickwireIO", "TickwireZlib",
                "CommandLineSupport",
                "ArenaGame",
            ],
            path: "Tools/tickwire",
            swiftSettings: strictSettings
        ),

        // Tests.
        .testTarget(name: "TickwireFoundationTests", dependencies: ["TickwireFoundation"], swiftSettings: strictSettings),
        .testTarget(name: "TickwireZlibTests", dependencies: ["TickwireZlib"], swiftSettings: strictSettings),
        // Fixtures are read through #filePath, not bundled as resources.
        .testTarget(
            name: "TickwireCodecTests", dependencies: ["TickwireCodec", "TickwireFoundation"], exclude: ["Fixtures"],
            swiftSettings: strictSettings),
        .testTarget(name: "TickwireIOTests", dependencies: ["TickwireIO", "TickwireFoundation"], swiftSettings: strictSettings),
        // `tickwire` for the TCP echo server it holds (the benchmark's baseline), tested with the sockets here.
        .testTarget(
            name: "TickwireWebSocketTests", dependencies: ["TickwireWebSocket", "TickwireFoundation", "TickwireCodec", "tickwire"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "TickwireSimTests", dependencies: ["TickwireSim", "TickwireFoundation"], swiftSettings: strictSettings),
        // Starts its own redis-server (TICKWIRE_REDIS_SERVER or PATH) on a free loopback port.
        .testTarget(
            name: "TickwireRedisTests", dependencies: ["TickwireRedis", "TickwireSim", "TickwireCodec", "TickwireFoundation"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "TickwireTests", dependencies: ["Tickwire"], swiftSettings: strictSettings),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "ArenaGameTests", dependencies: ["ArenaGame", "TickwireFoundation"], exclude: ["Fixtures"], swiftSettings: strictSettings),
    ]
)
