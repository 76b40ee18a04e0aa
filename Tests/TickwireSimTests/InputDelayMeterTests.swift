import Testing
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("InputDelayMeter: from sending an input to the server tick that applied it")
struct InputDelayMeterTests {
    @Test("each input a snapshot applies for the first time gives one sample, on the server's clock")
    func samples() throws {
        var meter = InputDelayMeter()
        meter.sent(sequence: 1, at: 1.000)
        meter.sent(sequence: 2, at: 1.050)
        meter.sent(sequence: 3, at: 1.100)
        // The server clock runs 10 s ahead; its tick at 11.120 applied inputs 1 and 2.
        meter.applied(upTo: 2, serverTime: 11.120, clockOffset: 10)
        #expect(meter.sampleCount == 2)
        #expect(abs(try #require(meter.latest) - 0.070) < 1e-9, "input 2: sent at 11.050 server time, applied at 11.120")
        #expect(abs(try #require(meter.worst) - 0.120) < 1e-9, "input 1 waited 120 ms")
        // A later snapshot that says the same sequence gives nothing new.
        meter.applied(upTo: 2, serverTime: 11.170, clockOffset: 10)
        #expect(meter.sampleCount == 2)
        meter.applied(upTo: 3, serverTime: 11.170, clockOffset: 10)
        #expect(abs(try #require(meter.latest) - 0.070) < 1e-9 && meter.sampleCount == 3)
    }

    @Test("before the clock is known the inputs are forgotten unmeasured; a clock ahead of the tick gives 0, not less")
    func unknownClock() throws {
        var meter = InputDelayMeter()
        meter.sent(sequence: 1, at: 0)
        meter.applied(upTo: 1, serverTime: 5, clockOffset: nil)
        #expect(meter.latest == nil && meter.sampleCount == 0)
        meter.sent(sequence: 2, at: 1)
        meter.applied(upTo: 2, serverTime: 5.9, clockOffset: 5)
        #expect(meter.latest == 0, "an estimate 100 ms off gives no negative delay")
    }

    @Test("a new connection numbers from 1 again: forgetPending drops the inputs in flight, keeps the samples")
    func reconnect() throws {
        var meter = InputDelayMeter()
        meter.sent(sequence: 1, at: 0)
        meter.applied(upTo: 1, serverTime: 0.05, clockOffset: 0)
        meter.sent(sequence: 2, at: 0.1)
        meter.forgetPending()
        meter.sent(sequence: 1, at: 2)
        meter.applied(upTo: 1, serverTime: 2.03, clockOffset: 0)
        #expect(meter.sampleCount == 2)
        #expect(abs(try #require(meter.latest) - 0.03) < 1e-9, "the new input 1, not the old input 2")
    }

    @Test("at most `capacity` inputs wait: at the capacity every one is measured, one past it the oldest is forgotten")
    func capacity() throws {
        for count in [InputDelayMeter.capacity, InputDelayMeter.capacity + 1] {
            var meter = InputDelayMeter()
            for sequence in 1...UInt32(count) { meter.sent(sequence: sequence, at: Double(sequence)) }
            meter.applied(upTo: UInt32(count), serverTime: 1000, clockOffset: 0)
            #expect(meter.sampleCount == InputDelayMeter.capacity, "\(count) sent: \(meter.sampleCount) measured")
        }
    }

    @Test("the worst is over the last `windowSize` samples: a slow one counts while it is in the window, not one sample after")
    func window() throws {
        var meter = InputDelayMeter()
        meter.sent(sequence: 1, at: 0)
        meter.applied(upTo: 1, serverTime: 0.5, clockOffset: 0)
        for sequence in 2...UInt32(InputDelayMeter.windowSize) {
            meter.sent(sequence: sequence, at: Double(sequence))
            meter.applied(upTo: sequence, serverTime: Double(sequence) + 0.05, clockOffset: 0)
        }
        #expect(abs(try #require(meter.worst) - 0.5) < 1e-9, "the slow sample is the oldest of \(InputDelayMeter.windowSize)")
        meter.sent(sequence: 100, at: 100)
        meter.applied(upTo: 100, serverTime: 100.05, clockOffset: 0)
        #expect(abs(try #require(meter.worst) - 0.05) < 1e-9, "one sample more and it has left the window")
    }

    @Test("on a 40 ms upstream and a 20 Hz server, the measured delay is the path plus at most a tick's wait")
    func simulated() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        let link = LinkConditions(latency: .milliseconds(40))
        simulation.addClient(upstream: link, downstream: link, input: { _, _ in DotsGame.Input(dx: 1, dy: 0) })
        simulation.run(for: .seconds(3))
        let figures = simulation.clients[0].figures
        let latest = try #require(figures.inputDelay, "3 s of inputs were applied")
        let worst = try #require(figures.worstInputDelay)
        #expect(latest >= 0.040 - 0.002, "no input reaches the server faster than the 40 ms path: \(latest) s")
        #expect(worst <= 0.040 + 0.050 + 0.002, "none waits longer than the path and one 50 ms tick: \(worst) s")
        #expect(worst >= latest)
    }
}
