import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

@Suite("SHA1")
struct SHA1Tests {
    @Test(
        "FIPS 180 vectors hash to the published digests",
        arguments: [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "a49b2446a02c645bf419f995b67091253a04a259"
            ),
        ])
    func vectors(message: String, digest: String) {
        #expect(hexString(SHA1.hash(Array(message.utf8))) == digest, "SHA-1 of '\(message)' must match FIPS 180")
    }

    @Test("a million 'a' hashes to the FIPS 180 digest, fed in uneven pieces")
    func millionA() {
        var hasher = SHA1()
        var generator = SplitMix64(seed: 1)
        var remaining = 1_000_000
        while remaining > 0 {
            let piece = min(remaining, Int.random(in: 1...1000, using: &generator))
            hasher.update([UInt8](repeating: UInt8(ascii: "a"), count: piece))
            remaining -= piece
        }
        #expect(
            hexString(hasher.finalize()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
            "one million 'a' must hash to the FIPS 180 value whatever the piece sizes")
    }

    @Test("hashing in pieces equals hashing at once, for lengths around block boundaries")
    func incremental() {
        var generator = SplitMix64(seed: 7)
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
            let message = randomBytes(length, using: &generator)
            let split = length == 0 ? 0 : Int.random(in: 0...length, using: &generator)
            var hasher = SHA1()
            hasher.update(Array(message[..<split]))
            hasher.update(Array(message[split...]))
            #expect(hasher.finalize() == SHA1.hash(message), "length \(length) split at \(split) must not change the digest")
        }
    }
}
