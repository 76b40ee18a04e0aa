import Testing

@testable import TickwireFoundation

@Suite("Prometheus text format writer")
struct PrometheusWriterTests {
    @Test("a counter and a gauge: HELP, TYPE and one sample line each, in order")
    func families() {
        var writer = PrometheusWriter()
        writer.counter("tickwire_joins_total", help: "New players admitted.", value: 3)
        writer.gauge("tickwire_rooms", help: "Rooms open.", value: 2)
        writer.gauge("tickwire_load_ratio", help: "A ratio.", value: 0.25)
        #expect(
            writer.text == """
                # HELP tickwire_joins_total New players admitted.
                # TYPE tickwire_joins_total counter
                tickwire_joins_total 3
                # HELP tickwire_rooms Rooms open.
                # TYPE tickwire_rooms gauge
                tickwire_rooms 2
                # HELP tickwire_load_ratio A ratio.
                # TYPE tickwire_load_ratio gauge
                tickwire_load_ratio 0.25

                """)
    }

    @Test("a labelled family writes one sample per label value, after one HELP and TYPE")
    func labelledFamily() {
        var writer = PrometheusWriter()
        writer.counter("refused_total", help: "Refused.", label: "reason", values: [("room_full", 2), ("unknown_room", 0)])
        #expect(
            writer.text == """
                # HELP refused_total Refused.
                # TYPE refused_total counter
                refused_total{reason="room_full"} 2
                refused_total{reason="unknown_room"} 0

                """)
    }

    @Test("label values escape backslash, double quote and newline; other bytes (UTF-8, braces) pass as they are")
    func labelEscaping() {
        var writer = PrometheusWriter()
        writer.sample("m", labels: [("room", "a\\b\"c\nd{é}"), ("x", "")], value: 1)
        #expect(writer.text == "m{room=\"a\\\\b\\\"c\\nd{é}\",x=\"\"} 1\n")
    }

    @Test("help text escapes backslash and newline but not double quotes")
    func helpEscaping() {
        var writer = PrometheusWriter()
        writer.family("m", type: .gauge, help: "line one\nC:\\path \"quoted\"")
        #expect(writer.text == "# HELP m line one\\nC:\\\\path \"quoted\"\n# TYPE m gauge\n")
    }

    @Test("names keep [a-zA-Z0-9_:] (no leading digit, no colon in label names); any other byte becomes _")
    func nameSanitising() {
        var writer = PrometheusWriter()
        writer.sample("9lives-per:sec é", labels: [("a:b", "v"), ("0x", "w")], value: 1)
        writer.sample("", value: 2)
        #expect(writer.text == "_lives_per:sec___{a_b=\"v\",_x=\"w\"} 1\n_ 2\n")
    }

    @Test("values: integers as integers, doubles in shortest form, infinities and NaN as Go spells them")
    func values() {
        #expect(PrometheusWriter.text(of: 0.005) == "0.005")
        #expect(PrometheusWriter.text(of: 2) == "2.0")
        #expect(PrometheusWriter.text(of: 1e-05) == "1e-05")
        #expect(PrometheusWriter.text(of: .infinity) == "+Inf")
        #expect(PrometheusWriter.text(of: -.infinity) == "-Inf")
        #expect(PrometheusWriter.text(of: .nan) == "NaN")
        var writer = PrometheusWriter()
        writer.sample("big", value: Int.max)
        writer.sample("negative", value: -3)
        #expect(writer.text == "big 9223372036854775807\nnegative -3\n")
    }

    @Test("a histogram writes cumulative buckets, the +Inf bucket equal to _count, then _sum and _count, labels before le")
    func histogram() {
        var histogram = MetricsHistogram(upperBounds: [0.5, 1, 2])
        for value in [0.25, 0.5, 0.75, 1.5, 4, 8] { histogram.observe(value) }
        var writer = PrometheusWriter()
        writer.histogram("tick_seconds", help: "Ticks.", histogram, labels: [("room", "main")])
        #expect(
            writer.text == """
                # HELP tick_seconds Ticks.
                # TYPE tick_seconds histogram
                tick_seconds_bucket{room="main",le="0.5"} 2
                tick_seconds_bucket{room="main",le="1.0"} 3
                tick_seconds_bucket{room="main",le="2.0"} 4
                tick_seconds_bucket{room="main",le="+Inf"} 6
                tick_seconds_sum{room="main"} 15.0
                tick_seconds_count{room="main"} 6

                """)
    }

    @Test("an empty histogram still writes every bucket, all zero")
    func emptyHistogram() {
        var writer = PrometheusWriter()
        writer.histogram("h", help: "H.", MetricsHistogram(upperBounds: [1]))
        #expect(writer.text.hasSuffix("h_bucket{le=\"1.0\"} 0\nh_bucket{le=\"+Inf\"} 0\nh_sum 0.0\nh_count 0\n"))
    }

    @Test("MetricType takes lowercase words only; the format's types are static members")
    func metricTypes() {
        #expect(MetricType(rawValue: "counter") == .counter)
        #expect(MetricType(rawValue: "gaugehistogram")?.rawValue == "gaugehistogram")
        #expect(MetricType(rawValue: "") == nil)
        #expect(MetricType(rawValue: "Counter") == nil)
        #expect(MetricType(rawValue: "gauge\n# TYPE x counter") == nil, "a type cannot break its line")
        #expect([MetricType.gauge, .histogram, .summary, .untyped].map(\.description) == ["gauge", "histogram", "summary", "untyped"])
    }
}
