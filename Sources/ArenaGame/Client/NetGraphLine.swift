import CommandLineSupport
import Tickwire

/// The net graph's figures as `key value` pairs, the `net …` segment of a dumped frame's header
/// (`arena join --script … --dump`), so that a test or a script reads what a player experienced:
///
/// ```
/// net time 12.533 transport ws ping 42 ping-worst 266 jitter 3 interp 100 buffer 2 extrapolated 12/1800 corrections 0/900 tick 3770 age 133 since-snapshot 101 input 71 input-worst 102
/// ```
///
/// - `time`: seconds since the first frame, three decimals.
/// - `transport`: `udp`, `ws` or `wss`: the one the connection reports, else the URL's scheme.
/// - `ping`, `ping-worst`: the median and the longest round trip of the last 16 pongs, ms.
/// - `jitter`: the jitter of ping round trips, ms. `interp`: the interpolation delay, ms.
/// - `buffer`: snapshots held ahead of the render time.
/// - `extrapolated E/F`: of the F frames drawn since the start, E were extrapolated.
/// - `corrections C/S`: of the S snapshots received since the start, C corrected the prediction.
/// - `tick`: the newest snapshot's tick. `age`: its age at this frame, ms (estimated server time
///   now minus the time stamped in it). `since-snapshot`: ms since a snapshot last arrived.
/// - `input`, `input-worst`: how long the newest applied input took from this client to the server
///   tick that applied it, and the longest of the last 16, ms.
/// - `loss`: the share of packets lost, percent, one decimal; only when the transport measures it
///   (UDP: of the client's recent packets, those the server never acknowledged).
/// - `link-rtt`, `link-jitter`: the transport's own round trip and its jitter, ms, from the
///   acknowledgements of every packet (an ack rides on the peer's next packet, so the wait for it,
///   up to a server tick, is in: on loopback `link-rtt` may read above `ping`, whose pong subtracts
///   the server's hold); only when the transport measures them (UDP, once a packet is acknowledged).
///
/// Times are whole milliseconds; a figure not known yet (no pong, no snapshot) is `-`. Values
/// hold no spaces, so the segment splits into pairs on spaces. Keys may be added, never renamed.
package enum NetGraphLine {
    /// The word that opens the segment.
    package static let marker = "net"

    /// The segment for `figures`.
    ///
    /// - Parameters:
    ///   - figures: The figures of one frame.
    ///   - start: The time of the first frame, which `time` counts from.
    /// - Returns: `net time … since-snapshot … input … input-worst …`, then `loss …` when the loss is known, then
    ///   `link-rtt … link-jitter …` when the transport's round trip is.
    package static func text(_ figures: NetGraphFigures, since start: Timestamp) -> String {
        var pairs: [(String, String)] = [
            ("time", decimalText((figures.time - start).secondsValue, places: 3)),
            ("transport", figures.transport ?? "-"),
            ("ping", milliseconds(figures.roundTrip)),
            ("ping-worst", milliseconds(figures.worstRoundTrip)),
            ("jitter", milliseconds(figures.roundTripJitter)),
            ("interp", milliseconds(figures.interpolationDelay)),
            ("buffer", "\(figures.bufferDepth)"),
            ("extrapolated", "\(figures.extrapolatedFrames)/\(figures.framesRendered)"),
            ("corrections", "\(figures.predictionCorrections)/\(figures.snapshotsReceived)"),
            ("tick", figures.newestTick.map { "\($0)" } ?? "-"),
            ("age", milliseconds(figures.newestSnapshotAge)),
            ("since-snapshot", milliseconds(figures.timeSinceLastSnapshot)),
            ("input", milliseconds(figures.inputDelay)),
            ("input-worst", milliseconds(figures.worstInputDelay)),
        ]
        if let loss = figures.loss { pairs.append(("loss", decimalText(loss * 100, places: 1))) }
        if let linkRoundTrip = figures.linkRoundTrip {
            pairs.append(("link-rtt", milliseconds(linkRoundTrip)))
            pairs.append(("link-jitter", milliseconds(figures.linkJitter)))
        }
        return ([marker] + pairs.map { "\($0.0) \($0.1)" }).joined(separator: " ")
    }

    /// The pairs of the `net …` segment of a dumped header line.
    ///
    /// - Parameter header: A header line, `--- frame N · … · net time … · STATUS ---`.
    /// - Returns: Each key's value, or `nil` when the line has no well-formed `net` segment
    ///   (none, an odd count of words, or a key twice).
    package static func pairs(inHeader header: String) -> [String: String]? {
        guard let segment = header.split(separator: " · ").first(where: { $0.hasPrefix(marker + " ") }) else { return nil }
        let words = segment.split(separator: " ").dropFirst().map(String.init)
        guard !words.isEmpty, words.count % 2 == 0 else { return nil }
        var pairs: [String: String] = [:]
        for index in stride(from: 0, to: words.count, by: 2) {
            guard pairs.updateValue(words[index + 1], forKey: words[index]) == nil else { return nil }
        }
        return pairs
    }

    private static func milliseconds(_ seconds: Double?) -> String {
        seconds.map { decimalText($0 * 1000, places: 0) } ?? "-"
    }
}
