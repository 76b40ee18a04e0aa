import Testing

@testable import TickwireWebSocket

@Suite("ChaCha20Generator")
struct ChaCha20GeneratorTests {
    func serialized(_ generator: inout ChaCha20Generator) -> [UInt8] {
        (0..<16).flatMap { _ -> [UInt8] in
            let word = generator.next32()
            return [
                UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 24),
            ]
        }
    }

    @Test("the quarter round matches RFC 8439 section 2.1.1")
    func quarterRound() {
        var a: UInt32 = 0x1111_1111, b: UInt32 = 0x0102_0304, c: UInt32 = 0x9B8D_6F43, d: UInt32 = 0x0123_4567
        ChaCha20Generator.quarterRound(&a, &b, &c, &d)
        #expect([a, b, c, d] == [0xEA2A_92F4, 0xCB1C_F8CE, 0x4581_472E, 0x5881_C4BB], "RFC 8439 2.1.1 quarter-round vector")
    }

    @Test("the block function matches RFC 8439 section 2.3.2")
    func blockVector() {
        let key: [UInt32] = [0x0302_0100, 0x0706_0504, 0x0B0A_0908, 0x0F0E_0D0C, 0x1312_1110, 0x1716_1514, 0x1B1A_1918, 0x1F1E_1D1C]
        var generator = ChaCha20Generator(key: key, nonce: [0x0900_0000, 0x4A00_0000, 0], counter: 1)
        let block = serialized(&generator)
        #expect(
            hexString(Array(block.prefix(48)))
                == "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2",
            "the keystream must equal RFC 8439's serialized block")
    }

    @Test("an all-zero key at counter 1 gives RFC 8439 appendix A.1 vector 2")
    func zeroKeyVector() {
        var generator = ChaCha20Generator(key: Array(repeating: 0, count: 8), nonce: [0, 0, 0], counter: 1)
        #expect(
            hexString(serialized(&generator))
                == "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"
        )
    }

    @Test("system-keyed generators differ from each other and do not repeat keys in a long run")
    func systemKeyed() {
        let first = MaskingKeyStream()
        let second = MaskingKeyStream()
        let a = (0..<10_000).map { _ in first.next() }
        let b = (0..<10_000).map { _ in second.next() }
        #expect(a != b, "two connections must not share a keystream")
        #expect(Set(a).count > 9_980, "32-bit keys from a CSPRNG almost never collide in 10 000 draws")
    }
}
