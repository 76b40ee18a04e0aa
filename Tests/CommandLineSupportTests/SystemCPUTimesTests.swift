import CommandLineSupport
import Testing

@Suite("SystemCPUTimes")
struct SystemCPUTimesTests {
    @Test("the aggregate /proc/stat line gives all ticks through steal, and steal")
    func parsing() throws {
        let times = try #require(SystemCPUTimes(procStatLine: "cpu  5492393 284165 1688465 7346859 19828 0 604574 95441 0 0"))
        #expect(times.stealTicks == 95441, "steal is the eighth count")
        #expect(
            times.totalTicks == 5_492_393 + 284165 + 1_688_465 + 7_346_859 + 19828 + 0 + 604574 + 95441,
            "the total sums the eight counts and leaves the guest columns out")
        #expect(SystemCPUTimes(procStatLine: "cpu 1 2 3 4 5 6 7 8") != nil, "eight counts and no guest columns (older kernels) parse")
        #expect(
            SystemCPUTimes(procStatLine: "cpu 1 2 3 4 5 6 7 8\n")?.stealTicks == 8,
            "the line feed fgets keeps is not part of the last count")
    }

    @Test(
        "other lines, too few counts and non-numbers are refused",
        arguments: [
            "cpu0 1 2 3 4 5 6 7 8 9 10", "cpu 1 2 3 4 5 6 7", "cpu 1 2 3 four 5 6 7 8 9 10", "intr 1 2 3 4 5 6 7 8 9", "",
            "cpu 18446744073709551615 1 0 0 0 0 0 0",
        ])
    func refused(line: String) {
        #expect(SystemCPUTimes(procStatLine: Substring(line)) == nil, "'\(line)' is not an aggregate cpu line with eight counts that fit")
    }

    @Test("the steal share is stolen ticks over all ticks between two readings")
    func stealShare() {
        let before = SystemCPUTimes(totalTicks: 1000, stealTicks: 10)
        let after = SystemCPUTimes(totalTicks: 1200, stealTicks: 60)
        #expect(after.stealShare(since: before) == 0.25, "50 of 200 ticks were stolen")
        #expect(before.stealShare(since: before) == nil, "no tick passed: no share")
        #expect(before.stealShare(since: after) == nil, "readings that go backwards give no share")
    }

    #if os(Linux)
    @Test("this Linux machine's /proc/stat can be read")
    func current() throws {
        let times = try #require(SystemCPUTimes.current(), "/proc/stat should parse on Linux")
        #expect(times.totalTicks > 0 && times.stealTicks <= times.totalTicks, "steal is part of the total")
    }
    #endif
}
