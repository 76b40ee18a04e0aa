import CommandLineSupport
import Tickwire

/// The two ways a person (or a test) plays an ``ArenaClient``: interactively in a terminal,
/// or headless from a script, printing frames as text.
package enum ArenaPlayLoop {
    /// Plays in the terminal until `q`, Ctrl-C, or a refused connection: raw mode, the
    /// alternate screen, redraws of changed rows only, `n` toggles the net graph.
    ///
    /// - Parameters:
    ///   - client: The client to play.
    ///   - notice: A line shown under the arena (how a second player joins, say).
    ///   - usesColor: Whether to draw in colour (off when `NO_COLOR` is set).
    ///   - phaseLock: Moves the ticks to land just after the snapshots arrive; `nil` ticks at a
    ///     phase of the client's own.
    /// - Returns: Why play ended, in words.
    /// - Throws: ``TerminalSession/OpenError`` when standard input or output is not a terminal.
    package static func playInteractively(
        _ client: ArenaClient, notice: String, usesColor: Bool, phaseLock: FramePhaseLock? = FramePhaseLock()
    ) throws(TerminalSession.OpenError) -> String {
        let terminal = try TerminalSession.open()
        defer { terminal.close() }
        var renderer = ScreenRenderer(usesColor: usesColor)
        var decoder = KeyDecoder()
        var held = HeldKeys()
        var showsNetGraph = false
        var size = terminal.size
        let clock = client.clock
        var nextTick = clock.now
        while true {
            // Read keys until this tick is due.
            while true {
                let remaining = nextTick - clock.now
                let milliseconds = Int32(max(0, min(remaining.secondsValue * 1000, 50)))
                var keys = decoder.decode(terminal.readInput(timeoutMilliseconds: milliseconds))
                if keys.isEmpty { keys = decoder.flushPendingEscape() }
                for key in keys {
                    switch key {
                    case .character("q"), .character("Q"), .interrupt, .escape:
                        client.leave()
                        return "you left the arena"
                    case .character("n"), .character("N"):
                        showsNetGraph.toggle()
                    default:
                        held.press(key, at: clock.now.seconds)
                    }
                }
                if clock.now >= nextTick { break }
            }
            let period = Duration.secondsValue(1 / Double(max(client.tickRate, 1)))
            nextTick = max(nextTick + period, clock.now - period)
            client.tick(input: held.input(at: clock.now.seconds))
            switch client.connectionState {
            case .refused(let reason, let text):
                return text.isEmpty ? "the server refused: \(reason)" : "the server refused: \(reason): \(text)"
            case .refusedConnection(let refusal): return "the server refused the connection: \(refusal)"
            case .kicked(let text): return text.isEmpty ? "the server kicked you" : "the server kicked you: \(text)"
            case .left: return "gave up reconnecting after \(client.connection.failedAttempts) failed attempts"
            default: break
            }
            nextTick = nextTick + phaseMove(client, lock: phaseLock, period: period)
            let currentSize = terminal.size
            if currentSize != size {
                size = currentSize
                renderer.invalidate()
            }
            var scene = client.scene(showsNetGraph: showsNetGraph)
            scene.notice = notice
            terminal.write(renderer.render(ArenaRenderer.render(scene, width: size.columns, height: size.rows)))
        }
    }

    /// Plays a script headless for `frames` client ticks, in real time.
    ///
    /// - Parameters:
    ///   - client: The client to play.
    ///   - script: The inputs, tick by tick.
    ///   - frames: Client ticks to run.
    ///   - width: Columns of the text frames.
    ///   - height: Rows of the text frames.
    ///   - output: Receives each frame as text when given: a header line
    ///     `--- frame N · you x,y hp H kills K · players P · bullets B · min-other-hp H · net … · STATUS ---`
    ///     (the `net` segment's figures are ``NetGraphLine``'s), a line of every
    ///     player (``playersLine(scene:metrics:)``), then the screen.
    ///   - phaseLock: Moves the ticks to land just after the snapshots arrive; `nil` ticks at a
    ///     phase of the client's own.
    /// - Returns: The last scene.
    @discardableResult
    package static func playScript(
        _ client: ArenaClient, script: ArenaScript, frames: Int, width: Int = 80, height: Int = 24,
        phaseLock: FramePhaseLock? = FramePhaseLock(), output: ((String) -> Void)? = nil
    ) -> ArenaScene {
        let clock = client.clock
        var nextTick = clock.now
        var scene = client.scene()
        var scriptTick = 0
        let start = clock.now
        for frame in 0..<max(frames, 0) {
            clock.sleep(until: nextTick)
            let period = Duration.secondsValue(1 / Double(max(client.tickRate, 1)))
            nextTick = nextTick + period
            // The script starts once the player is in the game, so its moves are not lost to the handshake.
            let isPlaying = client.session.clientID != nil && scene.players.contains { $0.id == client.session.clientID }
            let step = isPlaying ? script.step(atTick: scriptTick) : nil
            let input = step.map { $0.aimsAtBots ? ArenaScript.aim(in: scene, map: scene.map) : $0.input } ?? .idle
            if isPlaying { scriptTick += 1 }
            client.tick(input: input)
            scene = client.scene(showsNetGraph: true)
            nextTick = nextTick + phaseMove(client, lock: phaseLock, period: period)
            if let output {
                output(
                    header(frame: frame, scene: scene, figures: NetGraphLine.text(client.figures, since: start)) + "\n"
                        + playersLine(scene: scene, metrics: client.session.metrics)
                        + "\n" + ArenaRenderer.render(scene, width: width, height: height).plainText)
            }
        }
        return scene
    }

    /// The move of the next tick that keeps it just after the snapshots' arrivals (zero without a lock).
    private static func phaseMove(_ client: ArenaClient, lock: FramePhaseLock?, period: Duration) -> Duration {
        guard let lock else { return .zero }
        let figures = client.session.figures
        return .secondsValue(
            lock.adjustment(sinceSnapshot: figures.timeSinceLastSnapshot, period: period.secondsValue, jitter: figures.roundTripJitter))
    }

    /// The second line of a dumped frame, for tests that follow other players by name:
    /// `--- players · ID NAME X,Y hp H kills K · … · in R B/s, T B in all, S snapshots ---`, a
    /// bot's name after `~`, then the frame bytes this client received in the last complete
    /// second and over its whole session, and the snapshots it received (the totals let a test
    /// measure any window it likes).
    static func playersLine(scene: ArenaScene, metrics: ClientMetrics) -> String {
        var parts = ["--- players"]
        for player in scene.players.sorted(by: { $0.id < $1.id }) {
            parts.append(
                "\(player.id) \(player.isBot ? "~" : "")\(player.name) \(decimalText(player.x, places: 2)),\(decimalText(player.y, places: 2))"
                    + " hp \(player.health) kills \(player.score)")
        }
        parts.append(
            "in \(metrics.bytesInPerSecond) B/s, \(metrics.bytesInTotal) B in all, \(metrics.snapshotsReceived) snapshots ---")
        return parts.joined(separator: " · ")
    }

    /// The header line of a dumped frame: what tests read.
    ///
    /// - Parameters:
    ///   - frame: The frame's number, from 0.
    ///   - scene: What the frame shows.
    ///   - figures: The net graph's `net …` segment (``NetGraphLine/text(_:since:)``), placed
    ///     before the status, which stays the last segment.
    /// - Returns: `--- frame N · you … · players P (bots B) · bullets B · min-other-hp H · net … · STATUS ---`.
    static func header(frame: Int, scene: ArenaScene, figures: String) -> String {
        var parts = ["--- frame \(frame)"]
        if let me = scene.localPlayerID, let player = scene.players.first(where: { $0.id == me }) {
            parts.append(
                "you \(decimalText(player.x, places: 2)),\(decimalText(player.y, places: 2)) hp \(player.health) kills \(player.score) id \(player.id)"
            )
        } else {
            parts.append("you -")
        }
        let others = scene.players.filter { $0.id != scene.localPlayerID }
        parts.append("players \(scene.players.count) (bots \(others.filter(\.isBot).count))")
        parts.append("bullets \(scene.bullets.count)")
        parts.append("min-other-hp \(others.map(\.health).min() ?? -1)")
        parts.append(figures)
        parts.append("\(scene.connectionStatus) ---")
        return parts.joined(separator: " · ")
    }
}
