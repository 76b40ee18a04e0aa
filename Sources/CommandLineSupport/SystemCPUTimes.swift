#if canImport(Glibc)
import Glibc
#endif

/// The machine's CPU time so far, from the aggregate `cpu` line of Linux's `/proc/stat`, in
/// clock ticks: all of it, and the part a hypervisor gave to other guests ("steal").
///
/// Benchmarks use it to tell a round measured on a quiet host from one where the host took
/// a share of the CPU away: on a shared virtual machine that share can reach 40%, and then a
/// round measures the neighbours as much as the code.
package struct SystemCPUTimes: Equatable, Sendable {
    /// User, nice, system, idle, I/O wait, interrupt, soft interrupt and steal ticks together.
    package let totalTicks: UInt64
    /// Ticks in which a virtual CPU wanted to run and the hypervisor ran something else.
    package let stealTicks: UInt64

    /// Creates the times from their two sums.
    ///
    /// - Parameters:
    ///   - totalTicks: All ticks, steal included.
    ///   - stealTicks: The stolen ticks.
    package init(totalTicks: UInt64, stealTicks: UInt64) {
        self.totalTicks = totalTicks
        self.stealTicks = stealTicks
    }

    /// Parses the aggregate line of `/proc/stat`: `cpu` and then at least eight tick counts
    /// (user, nice, system, idle, iowait, irq, softirq, steal; later guest columns are already
    /// counted in user and nice, so they are left out).
    ///
    /// - Parameter line: The line, for example `cpu  5492393 284165 1688465 7346859 19828 0 604574 95441 0 0`,
    ///   with or without its line feed.
    /// - Returns: The times, or `nil` when the line is not such a line.
    package init?(procStatLine line: Substring) {
        let fields = line.split(omittingEmptySubsequences: true) { $0 == " " || $0 == "\n" }
        guard fields.count >= 9, fields[0] == "cpu" else { return nil }
        var ticks: [UInt64] = []
        for field in fields[1...8] {
            guard let value = UInt64(field) else { return nil }
            ticks.append(value)
        }
        let (total, overflow) = ticks.reduce((UInt64(0), false)) { sum, next in
            let added = sum.0.addingReportingOverflow(next)
            return (added.partialValue, sum.1 || added.overflow)
        }
        guard !overflow else { return nil }
        self.init(totalTicks: total, stealTicks: ticks[7])
    }

    /// Reads `/proc/stat` now.
    ///
    /// - Returns: The times, or `nil` where there is no `/proc/stat` (macOS) or it cannot be read.
    package static func current() -> SystemCPUTimes? {
        #if os(Linux)
        guard let file = fopen("/proc/stat", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SystemCPUTimes(procStatLine: Substring(line))
        #else
        return nil
        #endif
    }

    /// The share of the CPU time since `earlier` that the hypervisor took: stolen ticks over all ticks.
    ///
    /// - Parameter earlier: A reading taken before this one.
    /// - Returns: 0 to 1, or `nil` when no tick has passed or the readings go backwards.
    package func stealShare(since earlier: SystemCPUTimes) -> Double? {
        guard totalTicks > earlier.totalTicks, stealTicks >= earlier.stealTicks else { return nil }
        return Double(stealTicks - earlier.stealTicks) / Double(totalTicks - earlier.totalTicks)
    }
}
