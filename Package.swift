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
        .target(name: "TickwireZlib", dependencies: ["CZlib"], swiftSettings: strictSettings),
        .target(name: "TickwireCodec", dependencies: ["TickwireZlib"], swiftSettings: strictSettings),
        // The event loop, pollers, sockets, timers and TCP channels; knows no WebSocket. Not a
        // product: TickwireWebSocket re-exports it (its public API speaks of `EventLoop`,
        // `SocketAddress` and `SystemError`), and its loop-thread API is `package`.
        .target(
            name: "TickwireIO",
            dependencies: [.target(name: "CEpoll", condition: .when(platforms: [.linux])), "CTLS"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TickwireWebSocket",
            dependencies: ["TickwireIO", "TickwireZlib", "CWebSocketMask"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TickwireSim",
            dependencies: ["TickwireCodec", "TickwireIO", "TickwireWebSocket"],
            swiftSettings: strictSettings
        ),
        // A fleet's room directory on Redis: our own RESP2 client on the event loop (no C dependency).
        .target(
            name: "TickwireRedis",
            dependencies: ["TickwireCodec", "TickwireIO", "TickwireWebSocket", "TickwireSim"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Tickwire",
            dependencies: ["TickwireZlib", "TickwireCodec", "TickwireIO", "TickwireWebSocket", "TickwireSim", "TickwireRedis"],
            swiftSettings: strictSettings
        ),

        // Argument parsing shared by the executables (not a product).
        .target(name: "CommandLineSupport", swiftSettings: strictSettings),

        // The demo: a terminal arena built on the public API alone.
        // Web/ holds the arena's page (plain JavaScript over Clients/javascript, tested by Tools/suites/javascript);
        // the EmbedWebFiles plugin compiles it and the client's modules into the binary as Swift source.
        .target(
            name: "ArenaGame", dependencies: ["Tickwire", "CommandLineSupport"],
            exclude: ["Web/README.md", "Web/package.json", "Web/tsconfig.json", "Web/index.html", "Web/arena", "Web/node", "Web/client"],
            swiftSettings: strictSettings,
            plugins: ["EmbedWebFiles"]
        ),
        // Writes EmbeddedWebFiles.swift into the build directory from the files `arena serve` serves.
        .plugin(name: "EmbedWebFiles", capability: .buildTool(), dependencies: ["EmbedWebFilesTool"]),
        .executableTarget(name: "EmbedWebFilesTool", path: "Plugins/EmbedWebFilesTool", swiftSettings: strictSettings),
        .executableTarget(
            name: "ArenaCommand", dependencies: ["ArenaGame", "CommandLineSupport", "Tickwire"], swiftSettings: strictSettings),

        // Tools.
        .executableTarget(
            name: "tickwire",
            dependencies: [
                "Tickwire", "TickwireCodec", "TickwireSim", "TickwireWebSocket", "TickwireIO", "TickwireZlib", "CommandLineSupport",
                "ArenaGame",
            ],
            path: "Tools/tickwire",
            swiftSettings: strictSettings
        ),

        // Tests.
        .testTarget(name: "TickwireZlibTests", dependencies: ["TickwireZlib"], swiftSettings: strictSettings),
        // Fixtures are read through #filePath, not bundled as resources.
        .testTarget(name: "TickwireCodecTests", dependencies: ["TickwireCodec"], exclude: ["Fixtures"], swiftSettings: strictSettings),
        .testTarget(name: "TickwireIOTests", dependencies: ["TickwireIO"], swiftSettings: strictSettings),
        // `tickwire` for the TCP echo server it holds (the benchmark's baseline), tested with the sockets here.
        .testTarget(
            name: "TickwireWebSocketTests", dependencies: ["TickwireWebSocket", "TickwireCodec", "tickwire"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "TickwireSimTests", dependencies: ["TickwireSim"], swiftSettings: strictSettings),
        // Starts its own redis-server (TICKWIRE_REDIS_SERVER or PATH) on a free loopback port.
        .testTarget(
            name: "TickwireRedisTests", dependencies: ["TickwireRedis", "TickwireSim", "TickwireCodec"], swiftSettings: strictSettings
        ),
        .testTarget(name: "TickwireTests", dependencies: ["Tickwire"], swiftSettings: strictSettings),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport"], swiftSettings: strictSettings),
        .testTarget(name: "ArenaGameTests", dependencies: ["ArenaGame"], exclude: ["Fixtures"], swiftSettings: strictSettings),
    ]
)
