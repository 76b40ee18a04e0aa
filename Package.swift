// swift-tools-version:6.0
import PackageDescription

/// Every Swift target builds with the same settings: Swift 6 language mode
/// (strict concurrency checking) and explicit `any` for existentials.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

// The layers, each a target; an arrow is an import (ARCHITECTURE.md):
//
//   Tickwire (umbrella) ─→ every layer below
//   TickwireRedis ─→ TickwireSim, TickwireIO            TickwireWebSocketTransport ─→ TickwireSim, TickwireWebSocket
//   TickwireUDPTransport ─→ TickwireSim, TickwireNetcode, TickwirePacket, TickwireIO
//   TickwireTokens (connect tokens for every transport) ─→ TickwireSim, TickwireNetcode
//   TickwireSim (the game core) ─→ TickwireCodec        TickwireWebSocket ─→ TickwireIO ─→ CTLS (OpenSSL 3), CEpoll
//   TickwireCodec ─→ TickwireZlib ─→ CZlib              every Swift layer ─→ TickwireFoundation
//
// The game core and the codec need no C library but zlib: Tools/test fails if their dependency
// closure ever reaches OpenSSL, epoll, the event loop or WebSocket.
let package = Package(
    name: "Tickwire",
    // `Synchronization.Mutex` and `Atomic` need these.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // Everything: the game core, both codings, the WebSocket and UDP transports, TLS, the Redis fleet.
        .library(name: "Tickwire", targets: ["Tickwire"]),
        // The game core alone, for a game that brings its own transport: no C library but zlib.
        .library(name: "TickwireSim", targets: ["TickwireSim"]),
        // The snapshot codec alone: schemas, snapshots, deltas, frames, messages.
        .library(name: "TickwireCodec", targets: ["TickwireCodec"]),
        // A general RFC 6455 WebSocket client and server (with TLS), which knows no game.
        .library(name: "TickwireWebSocket", targets: ["TickwireWebSocket"]),
        // netcode.io 1.02 (connect tokens, packets, client and server), sans-IO, on libsodium.
        .library(name: "TickwireNetcode", targets: ["TickwireNetcode"]),
        // The UDP transport adapter: netcode.io and the packet layer under the core's transport protocols.
        .library(name: "TickwireUDPTransport", targets: ["TickwireUDPTransport"]),
        // Connect tokens for every transport: the issuer and the libsodium verifier of players' identities.
        .library(name: "TickwireTokens", targets: ["TickwireTokens"]),
        .library(name: "TickwireMatchmaker", targets: ["TickwireMatchmaker"]),
        .executable(name: "tickwire", targets: ["tickwire"]),
        .executable(name: "arena", targets: ["ArenaCommand"]),
    ],
    targets: [
        // C libraries and shims.
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // epoll and eventfd, which Glibc does not export (Linux only; Darwin polls with poll(2)).
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // OpenSSL 3 for wss:// (TLS), with a shim for the calls that are C macros. Only TickwireIO
        // links it.
        .systemLibrary(
            name: "CTLS",
            path: "Sources/CTLS",
            pkgConfig: "openssl",
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
        // Small shared utilities every layer may use: SplitMix64, the reconnect policy, the metrics
        // registry and Prometheus writer, the monotonic clock reading, the logging seam, the version.
        .target(name: "TickwireFoundation", swiftSettings: strictSettings),
        .target(name: "TickwireZlib", dependencies: ["CZlib"], swiftSettings: strictSettings),
        .target(name: "TickwireCodec", dependencies: ["TickwireFoundation", "TickwireZlib"], swiftSettings: strictSettings),
        // The game core: host, rooms, client sessions, the tick simulation, the transport protocols.
        .target(name: "TickwireSim", dependencies: ["TickwireFoundation", "TickwireCodec"], swiftSettings: strictSettings),
        // The event loop, pollers, sockets, timers, TCP channels and TLS; knows no WebSocket and
        // no game. Not a product: TickwireWebSocket re-exports it (its public API speaks of
        // `EventLoop`, `SocketAddress` and `SystemError`), and its loop-thread API is `package`.
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
        // The WebSocket transport adapter: the core's transport protocols over TickwireWebSocket.
        .target(
            name: "TickwireWebSocketTransport",
            dependencies: ["TickwireFoundation", "TickwireSim", "TickwireWebSocket"],
            swiftSettings: strictSettings
        ),
        // netcode.io 1.02, sans-IO: connect and challenge tokens, packets, replay protection, client and server
        // state machines. Depends on libsodium only; TickwireUDPTransport puts it on the event loop.
        .target(name: "TickwireNetcode", dependencies: ["CSodium"], swiftSettings: strictSettings),
        // Tickwire's packet layer over netcode.io payloads, sans-IO: sequence, acks, fragments, a
        // reliable-ordered channel, RTT and loss (PROTOCOL.md section 1A). Pure computation.
        .target(name: "TickwirePacket", dependencies: ["TickwireFoundation"], swiftSettings: strictSettings),
        // The UDP transport adapter: the core's transport protocols over netcode.io, the packet layer
        // and UDPChannel (PROTOCOL.md section 1A). Knows no WebSocket.
        .target(
            name: "TickwireUDPTransport",
            dependencies: ["TickwireFoundation", "TickwireCodec", "TickwireSim", "TickwireNetcode", "TickwirePacket", "TickwireIO"],
            swiftSettings: strictSettings
        ),
        // Connect tokens for every transport (PROTOCOL.md 5.3.1): the issuer holding the fleet's key
        // and the verifier a host checks hellos' tokens with, on netcode.io's format and libsodium.
        // The game core sees only the identity (`PlayerIdentity`) through its `ConnectTokenVerifier`.
        .target(
            name: "TickwireTokens", dependencies: ["TickwireFoundation", "TickwireCodec", "TickwireSim", "TickwireNetcode"],
            swiftSettings: strictSettings
        ),
        // A fleet's room directory on Redis: our own RESP2 client on the event loop (no C dependency).
        .target(
            name: "TickwireRedis",
            dependencies: ["TickwireFoundation", "TickwireIO", "TickwireSim"],
            swiftSettings: strictSettings
        ),
        // The matchmaker over HTTP (Protocol/MATCHMAKER.md): the service every `arena serve` answers
        // with, and the client that asks it for a seat and connects there.
        .target(
            name: "TickwireMatchmaker",
            dependencies: [
                "TickwireFoundation", "TickwireSim", "TickwireIO", "TickwireWebSocket", "TickwireWebSocketTransport",
                "TickwireUDPTransport", "TickwireNetcode", "TickwireTokens",
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Tickwire",
            dependencies: [
                "TickwireFoundation", "TickwireZlib", "TickwireCodec", "TickwireSim", "TickwireIO", "TickwireWebSocket",
                "TickwireWebSocketTransport", "TickwireUDPTransport", "TickwireRedis", "TickwireTokens", "TickwireMatchmaker",
            ],
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
            dependencies: ["Tickwire", "CommandLineSupport", "ArenaGame", "TickwirePacket", "TickwireNetcode", "TickwireUDPTransport"],
            path: "Tools/tickwire",
            swiftSettings: strictSettings
        ),

        // Tests: one target per library target, none on an executable.
        .testTarget(name: "TickwireFoundationTests", dependencies: ["TickwireFoundation"], swiftSettings: strictSettings),
        .testTarget(name: "TickwireZlibTests", dependencies: ["TickwireZlib"], swiftSettings: strictSettings),
        // Fixtures are read through #filePath, not bundled as resources.
        // The one reader of Protocol/vectors' .hex files and the error vector coverage walk, shared by the tests that read vectors.
        .target(name: "TickwireVectorTestSupport", path: "Tests/TickwireVectorTestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "TickwireCodecTests", dependencies: ["TickwireCodec", "TickwireFoundation", "TickwireVectorTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "TickwireIOTests", dependencies: ["TickwireIO", "TickwireFoundation"], swiftSettings: strictSettings),
        .testTarget(
            name: "TickwireWebSocketTests", dependencies: ["TickwireWebSocket", "TickwireFoundation", "TickwireCodec", "TickwireIO"],
            swiftSettings: strictSettings
        ),
        // Test fixtures shared by the core's tests and the transports' (a small game), not a product.
        .target(
            name: "TickwireSimTestSupport", dependencies: ["TickwireSim", "TickwireCodec"], path: "Tests/TickwireSimTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TickwireSimTests",
            dependencies: ["TickwireSim", "TickwireSimTestSupport", "TickwireFoundation", "TickwireVectorTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TickwireWebSocketTransportTests",
            dependencies: [
                "TickwireWebSocketTransport", "TickwireSim", "TickwireSimTestSupport", "TickwireWebSocket", "TickwireIO",
                "TickwireFoundation",
            ],
            swiftSettings: strictSettings
        ),
        // Starts its own redis-server (TICKWIRE_REDIS_SERVER or PATH) on a free loopback port.
        .testTarget(
            name: "TickwireRedisTests",
            dependencies: ["TickwireRedis", "TickwireRedisTestSupport", "TickwireSim", "TickwireCodec", "TickwireFoundation"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "TickwireTests", dependencies: ["Tickwire"], swiftSettings: strictSettings),
        // Vectors from Protocol/vectors/netcode (read through #filePath); interop with Tools/netcode-peer over
        // 127.0.0.1 (TICKWIRE_PYTHON, else .venv/bin/python).
        .testTarget(
            name: "TickwireNetcodeTests", dependencies: ["TickwireNetcode", "TickwireFoundation", "TickwireVectorTestSupport"],
            swiftSettings: strictSettings
        ),
        // Vectors from Protocol/vectors/packet (read through #filePath); two endpoints over a seeded lossy link.
        .testTarget(
            name: "TickwirePacketTests", dependencies: ["TickwirePacket", "TickwireFoundation", "TickwireVectorTestSupport"],
            swiftSettings: strictSettings
        ),
        // A host with a WebSocket and a UDP listener over 127.0.0.1, clients of both kinds in one room.
        .testTarget(
            name: "TickwireUDPTransportTests",
            dependencies: [
                "TickwireUDPTransport", "TickwireWebSocketTransport", "TickwireWebSocket", "TickwireSim", "TickwireSimTestSupport",
                "TickwireCodec", "TickwireNetcode", "TickwirePacket", "TickwireIO", "TickwireFoundation",
            ],
            swiftSettings: strictSettings
        ),
        // Token vectors from Protocol/vectors/tokens (read through #filePath), every refusal, and a
        // host with a real WebSocket listener on 127.0.0.1 admitting players by token.
        .testTarget(
            name: "TickwireTokensTests",
            dependencies: [
                "TickwireTokens", "TickwireNetcode", "TickwireSim", "TickwireSimTestSupport", "TickwireCodec",
                "TickwireWebSocketTransport", "TickwireWebSocket", "TickwireIO", "TickwireFoundation", "TickwireVectorTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        // The test suites' real redis-server (started on a free port, stopped by PID), shared by
        // the Redis and matchmaker tests.
        .target(
            name: "TickwireRedisTestSupport", dependencies: ["TickwireRedis"], path: "Tests/TickwireRedisTestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "TickwireMatchmakerTests",
            dependencies: [
                "TickwireMatchmaker", "TickwireRedis", "TickwireRedisTestSupport", "TickwireTokens", "TickwireNetcode", "TickwireSim",
                "TickwireSimTestSupport",
                "TickwireCodec", "TickwireWebSocketTransport", "TickwireWebSocket", "TickwireIO", "TickwireFoundation",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "ArenaGameTests", dependencies: ["ArenaGame", "CommandLineSupport", "TickwireFoundation", "TickwireSimTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings),
    ]
)
