/// The load client's outgoing bytes: its one frame repeated until the run is a whole number of
/// 64-byte blocks long, held twice, at two placements 32 bytes apart modulo 64.
///
/// A connection sends from its stream position modulo ``length``, so its source follows its
/// stream position modulo 64 even as it wraps, which is what `CopyPlacement` needs. The run also
/// holds at least the frames one connection keeps in flight, so that one `send` can carry them all.
///
/// Not thread-safe; owned by one load client.
final class BenchSendStream {
    /// The bytes in one run: a multiple of the frame length and of 64.
    let length: Int
    /// Both copies, each 64-byte aligned storage with 32 bytes to spare; the first run starts at
    /// 0, the second at 32.
    private let copies: (first: UnsafeMutableRawBufferPointer, second: UnsafeMutableRawBufferPointer)

    /// Lays out runs of `frame` for connections that keep `inFlight` frames outstanding.
    init(frame: [UInt8], inFlight: Int) {
        let frameLength = max(1, frame.count)
        let framesPerBlock = 64 / Self.greatestCommonDivisor(frameLength % 64, 64)
        let frames = max(1, (inFlight + framesPerBlock - 1) / framesPerBlock) * framesPerBlock
        length = frames * frameLength
        copies = (Self.run(of: frame, count: frames, at: 0), Self.run(of: frame, count: frames, at: 32))
    }

    deinit {
        copies.first.deallocate()
        copies.second.deallocate()
    }

    /// Where the byte at stream position `position` sits in the copy placed `shift` (0 or 32) bytes on.
    func address(of position: Int, shift: Int) -> UnsafeRawPointer? {
        let (copy, start) = shift == 0 ? (copies.first, 0) : (copies.second, 32)
        return copy.baseAddress.map { UnsafeRawPointer($0 + start + position % length) }
    }

    /// How many bytes from stream position `position` lie before the run wraps.
    func contiguousBytes(from position: Int) -> Int {
        length - position % length
    }

    /// `count` copies of `frame` back to back, from `shift` bytes into fresh 64-byte aligned storage.
    private static func run(of frame: [UInt8], count: Int, at shift: Int) -> UnsafeMutableRawBufferPointer {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count * frame.count + 32, alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        for index in 0..<count {
            let start = shift + index * frame.count
            frame.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: storage[start..<start + $0.count]).copyMemory(from: $0) }
        }
        return storage
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        b == 0 ? a : greatestCommonDivisor(b, a % b)
    }
}
