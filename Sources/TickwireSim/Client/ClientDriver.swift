import Synchronization

/// Runs a client in real time, the counterpart of ``Host/run(until:)``: ticks the session at
/// the server's tick rate (``ClientSession/tickRate``, from the welcome), asking the app for
/// each tick's input, and asks the app to render.
///
/// The ticks keep to absolute deadlines on the session's ``TickClock``, so
/// they do not drift: a late tick does not move the next one. With a `frameRate`, frames are
/// rendered on their own schedule between ticks (render interpolates, so 60 frames over 20
/// ticks a second look smooth); without one, the app renders after every tick.
///
/// ```swift
/// let driver = ClientDriver(frameRate: 60)
/// driver.run(client, input: { _ in readKeys() }, render: { view in draw(view) })
/// ```
///
/// A run ends when ``stop()`` is called (from any thread; it takes effect at the next tick or
/// frame), when its `until` closure returns `true`, when the task running the `async` form is
/// cancelled, or when the session ends (a ``ReconnectingSession`` in a final state: refused,
/// kicked or left; a bare ``ClientSession`` rejected or disconnected). A stopped driver stays
/// stopped: use a new one for the next run.
public final class ClientDriver: Sendable {
    /// Frames per second rendered between ticks, or `nil` to render once after each tick.
    public let frameRate: Int?
    private let stopRequest = Atomic<Bool>(false)

    /// Creates a driver.
    ///
    /// - Parameter frameRate: Frames per second (clamped to 1...1000), or `nil` to render after every tick.
    public init(frameRate: Int? = nil) {
        self.frameRate = frameRate.map { min(max($0, 1), 1000) }
    }

    /// Asks the run to end; safe from any thread. The run returns after the tick or frame in
    /// progress (within one tick or frame period).
    public func stop() {
        stopRequest.store(true, ordering: .releasing)
    }

    /// Whether ``stop()`` has been called.
    public var isStopRequested: Bool { stopRequest.load(ordering: .acquiring) }

    /// Runs `client` on this thread until the run ends (see ``ClientDriver``).
    ///
    /// - Parameters:
    ///   - client: The session to drive; its first tick opens its first connection.
    ///   - shouldStop: Checked before every sleep; `true` ends the run.
    ///   - input: Called once per tick with the tick number (from 0) for that tick's input.
    ///   - render: Called with the view to draw (see ``ReconnectingSession/render()``).
    public func run<G: Game>(
        _ client: ReconnectingSession<G>, until shouldStop: () -> Bool = { false },
        input: (_ tick: UInt64) -> G.Input?, render: (WorldView?) -> Void
    ) {
        var schedule = ClientSchedule(rate: client.tickRate, clock: client.clock, frameRate: frameRate)
        while !isStopRequested && !shouldStop() && !client.state.isFinal {
            client.clock.sleep(until: schedule.wakeTime)
            schedule.step(rate: client.tickRate, tick: { client.tick(input: input($0)) }, render: { render(client.render()) })
        }
    }

    /// Runs a bare `session` (no reconnection) on this thread until the run ends (see ``ClientDriver``).
    ///
    /// - Parameters:
    ///   - session: The session to drive, connected with ``ClientSession/connect(over:)``.
    ///   - shouldStop: Checked before every sleep; `true` ends the run.
    ///   - input: Called once per tick with the tick number (from 0) for that tick's input.
    ///   - render: Called with the view to draw (see ``ClientSession/render()``).
    public func run<G: Game>(
        _ session: ClientSession<G>, until shouldStop: () -> Bool = { false },
        input: (_ tick: UInt64) -> G.Input?, render: (WorldView?) -> Void
    ) {
        var schedule = ClientSchedule(rate: session.tickRate, clock: session.clock, frameRate: frameRate)
        while !isStopRequested && !shouldStop() && !session.status.hasEnded {
            session.clock.sleep(until: schedule.wakeTime)
            schedule.step(rate: session.tickRate, tick: { session.tick(input: input($0)) }, render: { render(session.render()) })
        }
    }

    /// Runs `client` on the caller's actor (or, from a nonisolated caller, on the global
    /// executor), suspending with `Task.sleep` between ticks and frames, until the run ends (see
    /// ``ClientDriver``), task cancellation included. On a ``VirtualClock`` it jumps to each
    /// deadline, as the clock's `sleep(until:)` does, and yields instead of sleeping.
    ///
    /// - Parameters:
    ///   - client: The session to drive; its first tick opens its first connection.
    ///   - isolation: The actor the run stays on; the caller's, by default.
    ///   - shouldStop: Checked before every sleep; `true` ends the run.
    ///   - input: Called once per tick with the tick number (from 0) for that tick's input.
    ///   - render: Called with the view to draw (see ``ReconnectingSession/render()``).
    public func run<G: Game>(
        _ client: ReconnectingSession<G>, isolation: isolated (any Actor)? = #isolation, until shouldStop: () -> Bool = { false },
        input: (_ tick: UInt64) -> G.Input?, render: (WorldView?) -> Void
    ) async {
        var schedule = ClientSchedule(rate: client.tickRate, clock: client.clock, frameRate: frameRate)
        while !isStopRequested && !shouldStop() && !client.state.isFinal {
            guard await ClientDriver.sleep(until: schedule.wakeTime, on: client.clock) else { return }
            schedule.step(rate: client.tickRate, tick: { client.tick(input: input($0)) }, render: { render(client.render()) })
        }
    }

    /// Runs a bare `session` (no reconnection) on the caller's actor, as the `async` form for a
    /// ``ReconnectingSession`` does, until the run ends (see ``ClientDriver``).
    ///
    /// - Parameters:
    ///   - session: The session to drive, connected with ``ClientSession/connect(over:)``.
    ///   - isolation: The actor the run stays on; the caller's, by default.
    ///   - shouldStop: Checked before every sleep; `true` ends the run.
    ///   - input: Called once per tick with the tick number (from 0) for that tick's input.
    ///   - render: Called with the view to draw (see ``ClientSession/render()``).
    public func run<G: Game>(
        _ session: ClientSession<G>, isolation: isolated (any Actor)? = #isolation, until shouldStop: () -> Bool = { false },
        input: (_ tick: UInt64) -> G.Input?, render: (WorldView?) -> Void
    ) async {
        var schedule = ClientSchedule(rate: session.tickRate, clock: session.clock, frameRate: frameRate)
        while !isStopRequested && !shouldStop() && !session.status.hasEnded {
            guard await ClientDriver.sleep(until: schedule.wakeTime, on: session.clock) else { return }
            schedule.step(rate: session.tickRate, tick: { session.tick(input: input($0)) }, render: { render(session.render()) })
        }
    }

    /// Suspends until `deadline` on `clock`.
    ///
    /// - Returns: `false` when the task was cancelled.
    private static func sleep(until deadline: Timestamp, on clock: any TickClock) async -> Bool {
        if let virtual = clock as? VirtualClock {
            virtual.sleep(until: deadline)
            await Task.yield()
            return !Task.isCancelled
        }
        let remaining = deadline - clock.now
        guard remaining > .zero else { return !Task.isCancelled }
        do {
            try await Task.sleep(for: remaining)
            return true
        } catch {
            return false
        }
    }
}

extension ClientStatus {
    /// Whether nothing more will arrive on the session's connection (rejected or disconnected).
    var hasEnded: Bool {
        switch self {
        case .rejected, .disconnected: true
        case .idle, .handshaking, .connected: false
        }
    }
}

/// When a ``ClientDriver`` ticks and renders next: a ``TickLoop`` at the session's rate (rebuilt
/// when the welcome changes the rate) and, with a frame rate, a second one for frames that
/// skips the frames a stall made it miss rather than rendering them back to back.
struct ClientSchedule {
    private var loop: TickLoop
    private let frames: TickLoop?
    private var tick: UInt64 = 0

    init(rate: Int, clock: any TickClock, frameRate: Int?) {
        loop = TickLoop(rate: rate, clock: clock)
        frames = frameRate.map { TickLoop(rate: $0, clock: clock, maximumCatchUp: 1) }
    }

    /// The next tick deadline, or the next frame's when that comes first.
    var wakeTime: Timestamp {
        guard let frames else { return loop.nextDeadline }
        return min(loop.nextDeadline, frames.nextDeadline)
    }

    /// Runs the ticks due (at `rate`) and the frame due, if any.
    mutating func step(rate: Int, tick runTick: (UInt64) -> Void, render: () -> Void) {
        if rate != loop.rate { loop = TickLoop(rate: rate, clock: loop.clock) }
        var counter = tick
        let advance = loop.advance { _, _ in
            runTick(counter)
            counter += 1
        }
        tick = counter
        if let frames {
            frames.advance { _, _ in render() }
        } else if advance.ticksRun > 0 {
            render()
        }
    }
}
