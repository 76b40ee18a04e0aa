import TickwireCodec
import TickwireFoundation

/// A host's figures for a metrics endpoint, published by its driving thread
/// (``Host/publishedMetrics``) after every pass that ticked or handshook, and read from any
/// thread. Counts run from the host's start; the sums over rooms include rooms closed since.
///
/// As a ``MetricsSource`` it writes the host's `tickwire_*` families (README, "Metrics").
public struct HostMetrics: Hashable, Sendable {
    /// One room's clients.
    public struct RoomClients: Hashable, Sendable {
        /// The room's name.
        public var room: String
        /// Its clients connected now.
        public var connected: Int
        /// Its clients disconnected and within their resumption grace period.
        public var held: Int
    }

    /// The reasons a scrape always shows (zero until one happens), so that a rate over them
    /// starts from a sample; others appear once counted.
    static let knownReasons: [Message.Reject.Reason] = [
        .unspecified, .versionMismatch, .schemaMismatch, .roomFull, .unknownRoom, .badResumeToken, .serverShuttingDown, .invalidHello,
    ]

    /// Rooms open now.
    public var rooms = 0
    /// Clients connected now, in every room.
    public var connectedClients = 0
    /// Clients disconnected and within their resumption grace period (held slots), in every room.
    public var heldClients = 0
    /// Connections waiting for their hello now.
    public var pendingHandshakes = 0
    /// Clients per room, in the order the rooms opened.
    public var roomClients: [RoomClients] = []
    /// The host's tick threads (``Host/tickThreadCount``).
    public var tickThreads = 1
    /// Whether ``Host/shutdown(text:)`` ran.
    public var isShuttingDown = false
    /// New players admitted (``Host/joins``).
    public var joins = 0
    /// Hellos that carried a resume token (``Host/reconnects``).
    public var reconnects = 0
    /// Hellos that resumed their client (``Host/resumes``).
    public var resumes = 0
    /// Hellos refused, by reason (``Host/rejections``).
    public var rejections: [Message.Reject.Reason: Int] = [:]
    /// Frame bytes the rooms received from their clients.
    public var bytesIn = 0
    /// Frame bytes the rooms sent their clients: snapshots, pongs and stats.
    public var bytesOut = 0
    /// Snapshots sent.
    public var snapshotsSent = 0
    /// Snapshots skipped because a client's transport was backed up (over
    /// ``HostConfiguration/outboundBudgetBytes``).
    public var snapshotsSkipped = 0
    /// Ticks whose snapshot the game could not capture, so that no client of the room got one
    /// (`tickwire_snapshots_dropped_total{reason="capture"}`).
    public var snapshotsNotCaptured = 0
    /// Snapshots dropped because they could not be encoded for a client: a codec or frame limit
    /// (`tickwire_snapshots_dropped_total{reason="encode"}`).
    public var snapshotsNotEncoded = 0
    /// Bad frames received from clients.
    public var badFrames = 0
    /// Pongs the rooms sent, over the host's life.
    public var pongsSent = 0
    /// The time the answered pings waited in the rooms before their pongs, summed, seconds:
    /// divided by ``pongsSent``, the mean tick wait that pongs with a hold tell clients to subtract.
    public var pingHoldSeconds = 0.0
    /// Ticks the rooms dropped after stalls, rather than run.
    public var ticksDropped = 0
    /// Rooms opened on demand that closed after standing empty (``Host/idleRoomsClosed``).
    public var idleRoomsClosed = 0
    /// How long each pass that ticked took (``Host/passStatistics``), in seconds.
    public var tickDuration = MetricsHistogram(upperBounds: MetricsHistogram.tickDurationBounds)
    /// Passes longer than the tick period.
    public var tickOverruns = 0
    /// The host's work with its room directory (``Host/fleetMetrics``), or `nil` for a standalone
    /// host (then no `tickwire_fleet_*` family is written).
    public var fleet: FleetMetrics?

    /// Creates empty figures.
    public init() {}

    /// The label a reason gets: its name in snake case (`room_full`), or `reason_N` for a code without one.
    ///
    /// - Parameter reason: The reason.
    /// - Returns: Its label value.
    public static func label(of reason: Message.Reject.Reason) -> String {
        String(reason.description.map { $0 == " " ? "_" : $0 })
    }
}

extension HostMetrics: MetricsSource {
    /// Writes the host's families: `tickwire_rooms`, `tickwire_clients` (by `state`),
    /// `tickwire_room_clients` (by `room`), `tickwire_handshakes_pending`, `tickwire_tick_threads`,
    /// `tickwire_shutting_down`, `tickwire_joins_total`, `tickwire_reconnects_total`,
    /// `tickwire_resumes_total`, `tickwire_handshakes_refused_total` (by `reason`),
    /// `tickwire_received_bytes_total`, `tickwire_sent_bytes_total`, `tickwire_snapshots_sent_total`,
    /// `tickwire_pongs_sent_total`, `tickwire_ping_hold_seconds_total`,
    /// `tickwire_snapshots_skipped_total`, `tickwire_snapshots_dropped_total` (by `reason`:
    /// `capture`, `encode`), `tickwire_bad_frames_total`, `tickwire_ticks_dropped_total`,
    /// `tickwire_idle_rooms_closed_total`, `tickwire_tick_duration_seconds` and
    /// `tickwire_tick_overruns_total`; with a room directory, the `tickwire_fleet_*` counters
    /// (``writeFleetMetrics(to:)``).
    ///
    /// - Parameter writer: The body being written.
    public func writeMetrics(to writer: inout PrometheusWriter) {
        writer.gauge("tickwire_rooms", help: "Rooms open.", value: rooms)
        writer.gauge(
            "tickwire_clients", help: "Clients in the rooms: connected, or held (disconnected, within their resumption grace period).",
            label: "state", values: [("connected", connectedClients), ("held", heldClients)])
        writer.family("tickwire_room_clients", type: .gauge, help: "Clients in each room, connected or held.")
        for entry in roomClients {
            writer.sample("tickwire_room_clients", labels: [("room", entry.room), ("state", "connected")], value: entry.connected)
            writer.sample("tickwire_room_clients", labels: [("room", entry.room), ("state", "held")], value: entry.held)
        }
        writer.gauge("tickwire_handshakes_pending", help: "Connections waiting for their hello.", value: pendingHandshakes)
        writer.gauge("tickwire_tick_threads", help: "Threads ticking the rooms.", value: tickThreads)
        writer.gauge("tickwire_shutting_down", help: "1 once the host is shutting down, else 0.", value: isShuttingDown ? 1 : 0)
        writer.counter("tickwire_joins_total", help: "New players admitted.", value: joins)
        writer.counter(
            "tickwire_reconnects_total", help: "Hellos carrying a resume token (clients reconnecting), resumed or not.", value: reconnects)
        writer.counter(
            "tickwire_resumes_total", help: "Hellos whose resume token got their client's id and player back.", value: resumes)
        var reasons = Self.knownReasons
        for reason in rejections.keys.sorted(by: { $0.rawValue < $1.rawValue }) where !reasons.contains(reason) { reasons.append(reason) }
        writer.counter(
            "tickwire_handshakes_refused_total", help: "Hellos refused with a reject message, by reason.", label: "reason",
            values: reasons.map { (Self.label(of: $0), rejections[$0] ?? 0) })
        writer.counter("tickwire_received_bytes_total", help: "Frame bytes the rooms received from their clients.", value: bytesIn)
        writer.counter("tickwire_sent_bytes_total", help: "Frame bytes the rooms sent their clients.", value: bytesOut)
        writer.counter("tickwire_snapshots_sent_total", help: "Snapshots sent to clients.", value: snapshotsSent)
        writer.counter(
            "tickwire_snapshots_skipped_total", help: "Snapshots skipped because the client's connection was backed up.",
            value: snapshotsSkipped)
        writer.counter(
            "tickwire_snapshots_dropped_total",
            help:
                "Snapshots dropped because the game could not capture its world (per room tick) or one could not be encoded for a client.",
            label: "reason", values: [("capture", snapshotsNotCaptured), ("encode", snapshotsNotEncoded)])
        writer.counter("tickwire_bad_frames_total", help: "Bad frames received from clients.", value: badFrames)
        writer.counter("tickwire_pongs_sent_total", help: "Pongs sent in answer to clients' pings.", value: pongsSent)
        writer.family(
            "tickwire_ping_hold_seconds_total", type: .counter,
            help: "Time pings waited in the rooms, from arrival to pong (the tick wait clients subtract), summed.")
        writer.sample("tickwire_ping_hold_seconds_total", value: pingHoldSeconds)
        writer.counter("tickwire_ticks_dropped_total", help: "Room ticks dropped after stalls rather than run.", value: ticksDropped)
        writer.counter(
            "tickwire_idle_rooms_closed_total", help: "Rooms opened on demand that closed after standing empty.", value: idleRoomsClosed)
        writer.histogram(
            "tickwire_tick_duration_seconds",
            help: "Duration of the host's passes that ran ticks: every due room, the tick threads side by side.",
            tickDuration)
        writer.counter("tickwire_tick_overruns_total", help: "Passes that took longer than the tick period.", value: tickOverruns)
        writeFleetMetrics(to: &writer)
    }

    /// Writes ``fleet``'s counters, when the host has a room directory:
    /// `tickwire_fleet_rooms_claimed_total`, `tickwire_fleet_rooms_restored_total`,
    /// `tickwire_fleet_room_states_refused_total`, `tickwire_fleet_room_states_saved_total`,
    /// `tickwire_fleet_room_states_too_large_total`, `tickwire_fleet_redirects_total`,
    /// `tickwire_fleet_standalone_rooms_total`, `tickwire_fleet_rooms_lost_total`,
    /// `tickwire_fleet_drains_total`, `tickwire_fleet_clients_moved_total`, `tickwire_fleet_handovers_total` and
    /// `tickwire_fleet_handovers_failed_total`.
    ///
    /// - Parameter writer: The body being written.
    public func writeFleetMetrics(to writer: inout PrometheusWriter) {
        guard let fleet else { return }
        writer.counter("tickwire_fleet_rooms_claimed_total", help: "Rooms the directory placed here.", value: fleet.roomsClaimed)
        writer.counter(
            "tickwire_fleet_rooms_restored_total", help: "Rooms placed here restored from their saved state.", value: fleet.roomsRestored)
        writer.counter(
            "tickwire_fleet_room_states_refused_total", help: "Saved room states that could not be restored (the room opened fresh).",
            value: fleet.statesRefused)
        writer.counter("tickwire_fleet_room_states_saved_total", help: "Room states saved to the directory.", value: fleet.statesSaved)
        writer.counter(
            "tickwire_fleet_room_states_too_large_total", help: "Room states not saved because they were over the size limit.",
            value: fleet.statesTooLarge)
        writer.counter(
            "tickwire_fleet_redirects_total", help: "Hellos redirected to the process holding their room.", value: fleet.redirects)
        writer.counter(
            "tickwire_fleet_standalone_rooms_total", help: "Rooms opened without a claim while the directory was unreachable.",
            value: fleet.standaloneRooms)
        writer.counter(
            "tickwire_fleet_rooms_lost_total", help: "Rooms closed because another process holds them now.", value: fleet.roomsLost)
        writer.counter("tickwire_fleet_drains_total", help: "Drains: the host handed its rooms on (SIGTERM).", value: fleet.drains)
        writer.counter(
            "tickwire_fleet_clients_moved_total", help: "Clients told to reconnect elsewhere by a drain or a lost room.",
            value: fleet.clientsMoved)
        writer.counter(
            "tickwire_fleet_handovers_total", help: "Redirects and moves that sent a client on its own transport (UDP, with a token).",
            value: fleet.handovers)
        writer.counter(
            "tickwire_fleet_handovers_failed_total", help: "Handovers that could not be made (the client got the WebSocket URL).",
            value: fleet.handoversFailed)
    }
}
