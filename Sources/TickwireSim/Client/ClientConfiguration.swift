import TickwireCodec
import TickwireFoundation

/// How a ``ClientSession`` connects, sends and shows the world.
public struct ClientConfiguration: Sendable {
    /// The room to join, or `nil` (the default) to join the room the connection's URL path
    /// names: `ws://host:7777/main` joins `main`, and a URL without a path (or `/`) the host's
    /// default room, the empty string. A room set here wins over the path (the path is then
    /// ignored), so that a tool can put players of one entry URL in several rooms; see
    /// ``ClientSession/room``.
    public var room: String?
    /// The compression modes offered in the hello.
    public var compressionModes = CompressionModes.all
    /// Whether the hello offers to decode entropy-coded snapshot deltas (``DeltaCoding/entropy``,
    /// `Protocol/PROTOCOL.md` §4.5), and their motion-predicted form with them
    /// (``DeltaCoding/predictedEntropy``, §4.5.6); the host decides which to use.
    public var offersEntropyDeltas = true
    /// Whether the hello offers to send render times with inputs (``Message/RenderTime``,
    /// `Protocol/PROTOCOL.md` §5.7.1), for a host that compensates lag; the session then fills
    /// them in itself, from what ``ClientSession/render()`` last showed.
    public var offersRenderTimes = true
    /// Whether the hello offers to read pongs that carry how long the server held each ping
    /// (``Message/Pong/hold``, `Protocol/PROTOCOL.md` §5.9.1), so that the measured round trip
    /// and clock offset leave out the server's tick wait. A host without the extension answers
    /// with the original pong, and the session then counts the wait in the round trip.
    public var offersPongHold = true
    /// How many of the newest unacknowledged inputs each input message carries.
    public var inputRedundancy = 3
    /// Time between clock-sync pings.
    public var pingInterval: Duration = .milliseconds(500)
    /// Whether the local player is predicted (and reconciled) with the game's step function.
    public var predictsLocalPlayer = true
    /// Snapshots kept as possible delta baselines.
    public var historySize = 32
    /// How far past the newest snapshot the view may extrapolate, in seconds.
    public var maximumExtrapolation = 0.1
    /// Snapshots kept for interpolation.
    public var interpolationCapacity = 32
    /// The bounds of the adaptive interpolation delay, in seconds.
    public var interpolationDelayRange: ClosedRange<Double> = 0.03...0.5
    /// Half-life of the smoothing of prediction corrections, in seconds.
    public var correctionHalfLife = 0.05
    /// A prediction correction larger than this (in field units) snaps.
    public var correctionSnapDistance = 2.0
    /// The protocol version put in the hello (change only to test the server's check).
    public var protocolVersion = tickwireProtocolVersion
    /// Opaque application data for the hello (for example a player name).
    public var helloPayload: [UInt8] = []
    /// The connect token to join with, for a host that admits players by token (PROTOCOL.md
    /// 5.3.1): what a hello carries of the netcode.io token an issuer minted
    /// (`ConnectToken.helloToken` in TickwireTokens). ``ClientSession/connectToken`` starts as
    /// this; `nil` (the default) joins anonymously.
    public var connectToken: Message.Hello.ConnectToken?
    /// Frame size and message limits enforced on what the server sends.
    public var frameLimits = FrameLimits.standard
    /// Snapshot codec limits.
    public var codecLimits = CodecLimits.default
    /// Where the session logs what it drops: frames and snapshots it cannot decode (`warning`;
    /// `error` when the compression stream broke), messages it cannot encode (`error`); a
    /// ``ReconnectingSession`` also logs each lost connection with its next delay (`warning`),
    /// and giving up or a refusal (`error`); source `client`. Default ``LogSink/disabled``.
    public var logSink: LogSink = .disabled

    /// Creates the default configuration.
    public init() {}
}

/// Where a ``ClientSession`` stands.
public enum ClientStatus: Hashable, Sendable {
    /// Not connected yet.
    case idle
    /// The hello is sent; waiting for the welcome.
    case handshaking
    /// Welcomed; snapshots and inputs flow.
    case connected
    /// The server refused the hello.
    case rejected(Message.Reject.Reason, String)
    /// The connection ended (the reason the server gave, or the transport's).
    case disconnected(String)
}
