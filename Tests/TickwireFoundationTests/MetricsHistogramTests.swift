import Testing

@testable import TickwireFoundation

@Suite("Metrics histogram")
struct MetricsHistogramTests {
    @Test("a value equal to a bound counts in that bucket (le is 'less or equal'); above every bound in the last")
    func boundaries() {
        var histogram = MetricsHistogram(upperBounds: [1, 2])
        for value in [1.0, 2, 2.000001, -5] { histogram.observe(value) }
        #expect(histogram.bucketCounts == [2, 1, 1])
        #expect(histogram.cumulativeCounts == [2, 3, 4])
        #expect(histogram.count == 4)
        #expect(histogram.sum == 1 + 2 + 2.000001 - 5)
    }

    @Test("bounds are sorted; repeats, infinities and NaN are left out; NaN observations are ignored")
    func bounds() {
        var histogram = MetricsHistogram(upperBounds: [5, 1, .infinity, 1, .nan, -.infinity, 3])
        #expect(histogram.upperBounds == [1, 3, 5])
        #expect(histogram.bucketCounts.count == 4)
        histogram.observe(.nan)
        #expect(histogram.count == 0 && histogram.sum == 0)
        histogram.observe(.infinity)
        #expect(histogram.cumulativeCounts == [0, 0, 0, 1], "+Inf counts in the +Inf bucket only")
    }

    @Test("the tick duration bounds are ascending and cover 100 µs to 250 ms")
    func tickDurationBounds() {
        let bounds = MetricsHistogram.tickDurationBounds
        #expect(bounds == bounds.sorted() && Set(bounds).count == bounds.count)
        #expect(bounds.first == 0.0001 && bounds.last == 0.25)
        #expect(MetricsHistogram(upperBounds: bounds).upperBounds == bounds)
    }
}
