import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

@Suite("WebSocketMaskingKey.AppliedBytes")
struct WebSocketMaskingKeyAppliedBytesTests {
    /// RFC 6455 section 5.3: byte `i` of the payload is XORed with key byte `(i + phase) % 4`.
    static func reference(_ data: [UInt8], key: WebSocketMaskingKey, phase: Int) -> [UInt8] {
        let keyBytes = [key.bytes.0, key.bytes.1, key.bytes.2, key.bytes.3]
        return data.enumerated().map { $0.element ^ keyBytes[($0.offset + phase) % 4] }
    }

    @Test("appending to an array XORs every byte, after what the array held, at every length and phase")
    func appendMatchesReference() {
        var generator = SplitMix64(seed: 21)
        // Short, portable-loop and wide (AVX2, from 256 bytes) lengths.
        for length in [0, 1, 3, 15, 16, 17, 33, 255, 256, 257, 1029, 65_536 + 13] {
            for phase in 0..<4 {
                let key = WebSocketMaskingKey.random(using: &generator)
                let data = randomBytes(length, using: &generator)
                let expected = Self.reference(data, key: key, phase: phase)
                let prefix = randomBytes(length % 7, using: &generator)
                // Without room (the array must grow), with exactly enough room, and after bytes already there.
                var growing: [UInt8] = []
                var roomy: [UInt8] = []
                roomy.reserveCapacity(length)
                var after = prefix
                data.withUnsafeBytes { source in
                    growing.append(contentsOf: key.applied(to: source, phase: phase))
                    roomy.append(contentsOf: key.applied(to: source, phase: phase))
                    after.append(contentsOf: key.applied(to: source, phase: phase))
                }
                #expect(growing == expected, "length \(length), phase \(phase): appending to an empty array must give the byte rule")
                #expect(roomy == expected, "length \(length), phase \(phase): appending into reserved room must give the byte rule")
                #expect(after == prefix + expected, "length \(length), phase \(phase): bytes already in the array must stay in front")
            }
        }
    }

    @Test("the iterator gives the same bytes one at a time")
    func iteratorMatchesReference() {
        var generator = SplitMix64(seed: 22)
        for phase in 0..<4 {
            let key = WebSocketMaskingKey.random(using: &generator)
            let data = randomBytes(301, using: &generator)
            var iterated: [UInt8] = []
            data.withUnsafeBytes { source in
                var iterator = key.applied(to: source, phase: phase).makeIterator()
                while let byte = iterator.next() { iterated.append(byte) }
            }
            #expect(iterated == Self.reference(data, key: key, phase: phase), "phase \(phase): iterating must give the byte rule")
        }
    }

    @Test("a bulk copy into too little room writes what fits, and its iterator carries on from there")
    func bulkCopyIntoShortRoom() {
        var generator = SplitMix64(seed: 23)
        let key = WebSocketMaskingKey.random(using: &generator)
        let data = randomBytes(300, using: &generator)
        let expected = Self.reference(data, key: key, phase: 1)
        let room = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 257)
        defer { room.deallocate() }
        var rest: [UInt8] = []
        let written = data.withUnsafeBytes { source in
            let (iterator, written) = key.applied(to: source, phase: 1)._copyContents(initializing: room)
            var remaining = iterator
            while let byte = remaining.next() { rest.append(byte) }
            return written
        }
        #expect(written == 257, "exactly the room's 257 bytes must be written")
        #expect(Array(room) == Array(expected[..<257]), "the written bytes must follow the byte rule")
        #expect(rest == Array(expected[257...]), "the iterator must give the 43 bytes that did not fit, in order")
    }
}
