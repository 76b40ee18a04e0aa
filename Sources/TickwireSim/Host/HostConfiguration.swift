import TickwireCodec
import TickwireFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a ``Host`` runs its rooms and treats its clients.
public struct HostConfiguration: Sendable {
    /// Simulation ticks per second of every room.
    public var tickRate = 20
    /// The most ticks a room runs back to back after a stall; the rest are dropped.
    public var maximumCatchUp = 5
    /// The most clients in a room, counting those within their resumption grace period (held
    /// slots). A hello for a full room first lets the room's oldest held slot go (its player is
    /// removed) and takes its place; only a room full of connected clients refuses it as
    /// `roomFull`.
    public var roomCapacity = 64
    /// Snapshots (ticks) of history per client: a baseline older than this is gone and
    /// the client gets a full snapshot.
    public var historySize = 32
    /// Send a snapshot every this many ticks (per client; see ``Room/setSnapshotInterval(_:for:)``).
    public var snapshotInterval = 1
    /// A client whose transport holds more than this many unsent bytes skips snapshots: the
    /// budget of ``TransportConnection/readiness(budgetBytes:)``, asked before each snapshot
    /// is encoded (the next delta is still against the last snapshot the client acknowledged).
    public var outboundBudgetBytes = 64 * 1024
    /// A connected client silent for this long is disconnected (disconnect reason timed out,
    /// close code 4005) and may resume.
    public var clientTimeout: Duration = .seconds(5)
    /// How long a disconnected client's player is kept (its held slot) for it to resume, once
    /// the client has sent an input; see ``resumeGracePeriodWithoutInput``.
    public var resumeGracePeriod: Duration = .seconds(10)
    /// How long the player of a client that dropped without ever sending an input is kept: a
    /// connection that joins and vanishes (a squatter, or a client that failed to start) holds
    /// a slot only this long. Restored clients (``HostState``) count as having sent input.
    public var resumeGracePeriodWithoutInput: Duration = .seconds(2)
    /// The most held slots (players of disconnected clients waiting to resume) per room; when
    /// one more client drops, the oldest held slot goes (its player is removed). Slots restored
    /// from a ``HostState`` do not count towards it.
    public var heldSlotLimit = 16
    /// A connection that has not sent a valid hello within this time is closed (close code 4005).
    public var handshakeTimeout: Duration = .seconds(5)
    /// The bad-frame policy: a client may send this many bad frames (frames that fail to
    /// decode, inputs the game cannot decode, messages of a type clients do not send) within
    /// any ``badFrameWindow``; one more and it is disconnected with a protocol error (close
    /// code 4004) and its player removed. 0 drops a client at its first bad frame.
    public var badFrameLimit = 10
    /// The window of ``badFrameLimit``: bad frames older than this no longer count.
    public var badFrameWindow: Duration = .seconds(10)
    /// The most inputs queued per client; older ones are dropped beyond it.
    public var inputQueueLimit = 16
    /// Compression modes in order of preference; the first the client offers is used.
    ///
    /// Per-frame comes first: with it the host's ``FrameCompressor`` deflates a client's frames
    /// only from ``FrameCompressor/smallestDeflatedBodyBytes`` up and only while that makes them
    /// at least 10% smaller, probing again every ``FrameCompressor/probeInterval`` frames, and
    /// sends them as they are otherwise (bit-packed deltas seldom shrink, and deflate is most of
    /// a tick's cost per client). A streaming sender must deflate every frame to keep both
    /// histories in step.
    public var compressionPreference: [CompressionMode] = [.perFrame, .streaming]
    /// Whether clients whose hello offers entropy-coded snapshot deltas (``DeltaCoding/entropy``,
    /// `Protocol/PROTOCOL.md` §4.5) get them; other clients always get the bit-packed deltas.
    /// They take about a third fewer bytes than bit-packed deltas on the benchmark scenes, but
    /// 2.4–3.2× the coding time per changed entity and a byte or two more on the smallest
    /// snapshots, so they are off by default: turn them on where bandwidth costs more than the
    /// host's CPU.
    public var entropyDeltas = false
    /// Whether, with ``entropyDeltas`` on, clients whose hello also offers motion prediction get
    /// motion-predicted entropy deltas (``DeltaCoding/predictedEntropy``, `Protocol/PROTOCOL.md`
    /// §4.5.6): each moving value is coded as its distance from where its last motion puts it,
    /// which takes far fewer bytes for things in flight. Off, those clients get plain
    /// entropy-coded deltas. The host then keeps a motion beside each snapshot it sent to them
    /// (8 bytes per field value, shared by clients without an interest filter).
    public var motionPrediction = true
    /// Lag compensation for a game that asks for it (``Game/compensatesLag``): the history window
    /// (1 s), how far a client's claimed render time is trusted (200 ms from the host's
    /// estimate), and how teleports are told. Ignored for other games, which keep no history.
    public var lagCompensation = LagCompensationConfiguration()
    /// Room names clients may join; a hello naming another is rejected. The empty name is the default room.
    public var rooms: [String] = [""]
    /// Whether a hello naming an unknown room creates it instead of being rejected.
    public var createsRoomsOnDemand = false
    /// The most rooms the host runs: a hello that would open one more is rejected as
    /// `unknownRoom`, so clients cannot make the host tick rooms without end.
    public var maximumRooms = 64
    /// A room opened on demand closes once it has been empty (no connected clients, no held
    /// slots) for this long, and its place counts towards ``maximumRooms`` again. Rooms in
    /// ``rooms`` (and rooms opened with ``Host/openRoom(named:)``) never close on their own.
    public var idleRoomTimeout: Duration = .seconds(30)
    /// Which entities each client sees; `nil` for all of them.
    public var interestFilter: InterestFilter?
    /// Frame size and message limits enforced on every client.
    public var frameLimits = FrameLimits.standard
    /// Snapshot codec limits.
    public var codecLimits = CodecLimits.default
    /// Seed for resume tokens; `nil` draws them from the system's secure generator.
    public var tokenSeed: UInt64?
    /// zlib settings of each client's compression stream.
    public var compressionSettings = CompressionSettings()
    /// How often each room sends every connected client a stats message (PROTOCOL.md
    /// section 5.11: the room's tick durations, the process's CPU share, clients, bytes out);
    /// `nil`, the default, sends none.
    public var statsInterval: Duration?

    /// How many threads tick the rooms: the thread that calls ``Host/advance()`` (or
    /// ``Host/run(until:)``) and `tickThreads − 1` more, clamped to
    /// 1...``maximumTickThreads``. The default is the number of processors online
    /// (``processorCount``).
    ///
    /// Each room gets a home tick thread when it opens, the one with the fewest rooms (the
    /// lowest-numbered among equals). Each pass of ``Host/advance()`` ticks the threads' rooms at
    /// the same time, each room's inbox, tick and sends on one thread, and waits for all of them;
    /// a thread done with its own rooms takes over rooms another has not reached yet, so a
    /// thread woken late holds no one up; handshakes, room placement, idle rooms and ``Host/exportState()`` run on
    /// the calling thread between passes. Only on a real-time clock (``TickClock/isRealTime``):
    /// on a virtual clock the host ticks every room inline on the calling thread (as if this were
    /// 1), so that simulations stay deterministic, unless ``usesTickThreadsOnVirtualClock``.
    /// With more than one, call ``AllocatorTuning/keepFreedHeapMemory(upTo:largeBlockBytes:)``
    /// at the start of the process.
    public var tickThreads = HostConfiguration.processorCount
    /// Whether a host on a virtual clock ticks its rooms on its tick threads all the same: for
    /// capacity benchmarks that advance the clock by one tick period per ``Host/advance()`` and so
    /// step every room as fast as the threads allow (`tickwire bench sim --threads`). The
    /// transports must then be thread-safe (``SimulatedNetwork`` is). `false` by default.
    public var usesTickThreadsOnVirtualClock = false

    /// With a ``RoomDirectory`` (``Host/init(game:listener:clock:configuration:directory:)``): how
    /// often the host reports its rooms' loads to the directory (its heartbeat, which keeps its
    /// claims alive) and saves every room it holds there. Default 1 s; keep it well under the
    /// directory's claim time to live.
    public var directoryInterval: Duration = .seconds(1)
    /// The limits of a saved room state the host reads from its ``RoomDirectory``
    /// (``RoomStateEncoding/Limits``); a room whose state grows past
    /// ``RoomStateEncoding/Limits/maximumBytes`` is not saved (``FleetMetrics/statesTooLarge``).
    public var roomStateLimits = RoomStateEncoding.Limits.standard
    /// Where the host and its rooms log what goes wrong: a snapshot that cannot be captured or
    /// encoded (`error`, source `room`, with the room and client; the 1st, 2nd, 4th, 8th… of a
    /// room's drops of one kind, so a failure repeating every tick writes few lines), each counted in
    /// ``HostMetrics/snapshotsNotCaptured`` and ``HostMetrics/snapshotsNotEncoded``; a client
    /// closed because it refused a compressed snapshot (`warning`); with a room directory, a saved
    /// room state that cannot be restored or is too large to save (`error`, source `host`).
    /// Called on the tick threads and the driving thread: keep the handler quick.
    /// Default ``LogSink/disabled``.
    public var logSink: LogSink = .disabled
    /// Whether a hello must carry a connect token (PROTOCOL.md 5.3.1) to join as a new player:
    /// off by default, for anonymous play. When on, a hello that neither carries a token nor
    /// resumes a held session is refused with ``Message/Reject/Reason/tokenRequired``; it needs
    /// ``tokenVerifier``.
    public var requiresTokens = false
    /// Opens the connect tokens hellos carry (a `NetcodeConnectTokenVerifier` from TickwireTokens,
    /// holding the fleet's key). Without one, a hello's token is not looked at (and, when
    /// ``requiresTokens`` is on, every new player is refused with ``Message/Reject/Reason/tokenRequired``).
    /// With one, every token is checked, required or not.
    public var tokenVerifier: (any ConnectTokenVerifier)?
    /// The most used connect tokens the host remembers at once (each until it expires), so that
    /// none joins twice; when that many unexpired tokens are held, new tokens are refused with
    /// ``Message/Reject/Reason/tokensExhausted`` rather than one forgotten.
    public var maximumUsedTokens = HostConfiguration.defaultMaximumUsedTokens
    /// The default of ``maximumUsedTokens``: 65 536.
    public static let defaultMaximumUsedTokens = 65_536

    /// The most tick threads a host runs (``tickThreads``).
    public static let maximumTickThreads = 256

    /// The processors online (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1: the default of
    /// ``tickThreads``.
    public static var processorCount: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// Creates the default configuration.
    public init() {}
}

extension HostConfiguration {
    /// zlib compression level for snapshot frames (0…9).
    public var compressionLevel: Int {
        get { compressionSettings.level }
        set { compressionSettings.level = newValue }
    }
    /// zlib window bits for each client's deflate stream (9…15); smaller saves memory per client.
    public var compressionWindowBits: Int {
        get { compressionSettings.windowBits }
        set { compressionSettings.windowBits = newValue }
    }
    /// zlib memory level for each client's deflate stream (1…9); smaller saves memory per client.
    public var compressionMemoryLevel: Int {
        get { compressionSettings.memoryLevel }
        set { compressionSettings.memoryLevel = newValue }
    }
}

/// zlib settings of the host's per-client deflate streams.
public struct CompressionSettings: Hashable, Sendable {
    /// Compression level, 0…9.
    public var level = 6
    /// Window bits, 9…15: the deflate stream uses about 2^(bits+2) bytes.
    public var windowBits = 12
    /// Memory level, 1…9: the deflate stream uses about 2^(level+9) bytes more.
    public var memoryLevel = 5

    /// Creates the default settings (level 6, 4 KiB window, memory level 5: about 32 KiB per client).
    public init() {}
}
