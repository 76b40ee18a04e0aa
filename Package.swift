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
        .library(name: "TickwireNetcode", targets: ["TickwireNetcode"]),
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
        // libsodium for netcode.io 1.02 (XChaCha20-/ChaCha20-Poly1305-IETF, randombytes), found through pkg-config.
        .systemLibrary(
            name: "CSodium",
            path: "Sources/CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
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
        // netcode.io 1.02, sans-IO: connect and challenge tokens, packets, replay protection, client and server
        // state machines. Depends on libsodium only; the UDP sockets on the event loop come later.
        .target(name: "TickwireNetcode", dependencies: ["CSodium"], swiftSettings: strictSettings),
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
        // Vectors from Protocol/vectors/netcode (read through #filePath); interop with Tools/netcode-peer over
        // 127.0.0.1 (TICKWIRE_PYTHON, else .venv/bin/python).
        .testTarget(name: "TickwireNetcodeTests", dependencies: ["TickwireNetcode"], swiftSettings: strictSettings),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport"], swiftSettings: strictSettings),
        .testTarget(name: "ArenaGameTests", dependencies: ["ArenaGame"], exclude: ["Fixtures"], swiftSettings: strictSettings),
    ]
)
