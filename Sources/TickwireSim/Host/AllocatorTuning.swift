#if canImport(Glibc)
import Glibc
#endif

/// Process-wide settings of the C allocator that let a host's tick threads scale.
///
/// glibc's `malloc` gives every thread but the main one heaps of their own, and hands the
/// freed top of such a heap back to the kernel as soon as it passes the trim threshold
/// (`madvise(MADV_DONTNEED)`); a tick thread that frees a pass's snapshots and frames and
/// allocates them again next pass then takes a page fault and a page of zeros for every page,
/// every pass, and the faults of several threads queue on the process's memory map lock.
/// Measured with `tickwire bench sim --threads 2` on two cores: a fifth of the profile in the
/// kernel clearing pages, and two threads slower than one. Keeping freed memory up to a bound
/// (``keepFreedHeapMemory(upTo:largeBlockBytes:)``) removes that cost. `arena serve` and the
/// benchmark call it at start; a server of your own can, or can set `MALLOC_TRIM_THRESHOLD_`
/// and `MALLOC_MMAP_THRESHOLD_` in its environment.
public enum AllocatorTuning {
    /// The freed heap memory a thread keeps by default: 64 MiB.
    public static let defaultKeptBytes = 64 << 20
    /// The size from which an allocation gets pages of its own by default: 4 MiB (glibc's own
    /// starts at 128 KiB, and fixes it there once the trim threshold is set).
    public static let defaultLargeBlockBytes = 4 << 20

    /// Sets glibc's trim threshold (`mallopt(M_TRIM_THRESHOLD)`) and mmap threshold
    /// (`mallopt(M_MMAP_THRESHOLD)`) for the whole process. Does nothing elsewhere.
    ///
    /// - Parameters:
    ///   - bytes: Freed memory at the top of a heap kept rather than given back to the kernel.
    ///   - largeBlockBytes: Allocations of at least this many bytes are mapped on their own
    ///     (and unmapped when freed); at most 32 MiB.
    /// - Returns: Whether the allocator took both settings.
    @discardableResult
    public static func keepFreedHeapMemory(upTo bytes: Int = defaultKeptBytes, largeBlockBytes: Int = defaultLargeBlockBytes) -> Bool {
        #if canImport(Glibc)
        // <malloc.h> is not in the Glibc module: look `mallopt` up by name (RTLD_DEFAULT is a null handle).
        guard let symbol = dlsym(nil, "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD in <malloc.h>
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in <malloc.h>
        let trim = mallopt(trimThreshold, Int32(clamping: max(bytes, 0)))
        let mmap = mallopt(mmapThreshold, Int32(clamping: min(max(largeBlockBytes, 0), 32 << 20)))
        return trim == 1 && mmap == 1
        #else
        return false
        #endif
    }
}
