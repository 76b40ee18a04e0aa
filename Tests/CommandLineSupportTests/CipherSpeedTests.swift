import CommandLineSupport
import Testing

@Suite("CipherSpeed")
struct CipherSpeedTests {
    /// The end of `openssl speed -seconds 1 -bytes 16384 -evp aes-128-gcm` (OpenSSL 3.0.19).
    static let oneBlock = """
        version: 3.0.19
        built on: Tue Jan 27 12:00:00 2026 UTC
        CPUINFO: OPENSSL_ia32cap=0xfffa3203078bffff:0x400684219c07ab
        The 'numbers' are in 1000s of bytes per second processed.
        type          16384 bytes
        AES-128-GCM    3845946.26k

        """

    /// The table of `openssl speed -evp aes-128-gcm` with its default block sizes.
    static let sixBlocks = """
        The 'numbers' are in 1000s of bytes per second processed.
        type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes
        AES-128-GCM     512345.10k  1400000.00k  2900000.00k  3500000.00k  3800000.00k  3900000.50k
        """

    @Test("the one-block table of -bytes 16384 gives bytes per second (thousands times 1000)")
    func oneBlock() throws {
        let speed = try #require(
            CipherSpeed(opensslSpeedOutput: Self.oneBlock, cipher: "aes-128-gcm"), "the row is found whatever its case")
        let closest = speed.bytesPerSecond(closestTo: 16 * 1024)
        #expect(closest.blockBytes == 16384, "the only block measured")
        #expect(abs(closest.bytesPerSecond - 3_845_946_260) < 1, "3845946.26k is 3 845 946 260 bytes per second")
    }

    @Test("with several block sizes, the one closest to the record size is read; a tie takes the smaller")
    func closestBlock() throws {
        let speed = try #require(CipherSpeed(opensslSpeedOutput: Self.sixBlocks, cipher: "AES-128-GCM"))
        #expect(speed.bytesPerSecondByBlock.map(\.blockBytes) == [16, 64, 256, 1024, 8192, 16384], "every column is read")
        #expect(speed.bytesPerSecond(closestTo: 16384).blockBytes == 16384, "the record size itself")
        #expect(speed.bytesPerSecond(closestTo: 12000).blockBytes == 8192, "12000 is nearer 8192 than 16384")
        #expect(speed.bytesPerSecond(closestTo: 12288).blockBytes == 8192, "halfway between 8192 and 16384: the smaller")
        #expect(speed.bytesPerSecond(closestTo: 1 << 20).blockBytes == 16384, "beyond the largest: the largest")
    }

    @Test(
        "no header, another cipher's row, a row that does not match the header, or a figure without k is refused",
        arguments: [
            "AES-128-GCM    3845946.26k",
            "type          16384 bytes\nCHACHA20-POLY1305    3700000.00k",
            "type          16 bytes     64 bytes\nAES-128-GCM    3845946.26k",
            "type          16384 bytes\nAES-128-GCM    3845946.26",
            "type          16384 bytes\nAES-128-GCM    -5.00k",
            "type          16384 things\nAES-128-GCM    3845946.26k",
            "",
        ])
    func refused(output: String) {
        #expect(CipherSpeed(opensslSpeedOutput: output, cipher: "aes-128-gcm") == nil, "'\(output)' is not a table with an aes-128-gcm row")
    }
}
