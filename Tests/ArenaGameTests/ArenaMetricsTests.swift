import Dispatch
import Testing
import TickwireSim
import TickwireSimTestSupport

@testable import ArenaGame

@Suite("The arena server's GET /metrics")
struct ArenaMetricsTests {
    /// Runs a server on port 0 with two bots on a thread of its own, calls `check` with its
    /// port, then stops it and waits (at most 10 s) for it to return.
    func withRunningServer(_ configure: (inout ArenaServer.Options) -> Void = { _ in }, _ check: (Int) throws -> Void) throws {
        var options = ArenaServer.Options()
        options.port = 0
        options.bots = 2
        options.tickThreads = 1
        configure(&options)
        let running = try RunningArenaServer(options)
        defer { running.stop() }
        try check(running.server.port)
    }

    @Test("GET /metrics shows the host's families, the server's and the arena's bots; the page is still served at /")
    func metricsBesideTheWebSite() throws {
        try withRunningServer { port in
            // The bots are recorded between passes: scrape until the first pass has run (bounded).
            var body = ""
            for _ in 0..<100 {
                let scrape = try HTTPScrape.get("/metrics", port: port)
                #expect(scrape.status == "HTTP/1.1 200 OK", "got '\(scrape.status)'")
                body = scrape.body
                // The arena's bots and the host's figures are published by separate steps of a pass.
                if PrometheusText.value("tickwire_arena_bots", in: body) == 2 && PrometheusText.value("tickwire_rooms", in: body) == 1 {
                    break
                }
                _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(20))
            }
            #expect(PrometheusText.value("tickwire_arena_bots", in: body) == 2, "two bots in room main")
            #expect(PrometheusText.value("tickwire_rooms", in: body) == 1)
            #expect(body.contains("# TYPE tickwire_tick_duration_seconds histogram"))
            #expect(body.contains("# TYPE tickwire_websocket_connections_refused_total counter"))
            // A request is counted once answered: the next scrape shows the ones before it.
            let again = try HTTPScrape.get("/metrics", port: port).body
            #expect((PrometheusText.value("tickwire_http_requests_total", in: again) ?? 0) >= 1)
            let page = try HTTPScrape.get("/", port: port)
            #expect(page.status == "HTTP/1.1 200 OK" && page.body.contains("<html"), "the browser page is still at /")
        }
    }

    @Test("with servesMetrics off, /metrics is 404 and the page is still served")
    func metricsOff() throws {
        try withRunningServer({ $0.servesMetrics = false }) { port in
            let metrics = try HTTPScrape.get("/metrics", port: port)
            #expect(metrics.status.hasPrefix("HTTP/1.1 404"), "got '\(metrics.status)'")
            let page = try HTTPScrape.get("/", port: port)
            #expect(page.status == "HTTP/1.1 200 OK")
        }
    }
}
