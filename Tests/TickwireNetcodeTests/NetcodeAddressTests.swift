import Testing

@testable import TickwireNetcode

struct NetcodeAddressTests {
    @Test(
        "IPv4 and IPv6 addresses parse and print",
        arguments: [
            ("127.0.0.1:40000", "127.0.0.1:40000"), ("[::1]:5", "[0:0:0:0:0:0:0:1]:5"),
            ("[2001:db8::8:800:200c:417a]:443", "[2001:db8:0:0:8:800:200c:417a]:443"), ("[1:2:3:4:5:6:7:8]:0", "[1:2:3:4:5:6:7:8]:0"),
        ])
    func parse(text: String, printed: String) throws {
        let address = try NetcodeAddress(parsing: text)
        #expect(address.description == printed)
        #expect(try NetcodeAddress(parsing: printed) == address)
    }

    @Test(
        "malformed addresses are refused",
        arguments: [
            "", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "1.2.3:4", "1.2.3.4.5:6", "256.0.0.1:1", "[::1]", "[::1:5", "[1::2::3]:4",
            "[12345::]:1", "[1:2:3:4:5:6:7:8:9]:1", "::1:5",
        ])
    func refused(text: String) {
        #expect(throws: NetcodeError.self) { try NetcodeAddress(parsing: text) }
    }

    @Test("the serialized form: type byte, IPv4 bytes in order or IPv6 groups as little-endian uint16, port little-endian")
    func serialized() throws {
        var writer = ByteWriter(capacity: 32)
        NetcodeAddress(ipv4: 127, 0, 0, 1, port: 0x9C40).write(to: &writer)
        #expect(writer.bytes == [1, 127, 0, 0, 1, 0x40, 0x9C])
        writer = ByteWriter(capacity: 32)
        try NetcodeAddress(parsing: "[2001:db8::1]:443").write(to: &writer)
        #expect(writer.bytes == [2, 0x01, 0x20, 0xB8, 0x0D, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0xBB, 0x01])
        var reader = ByteReader(writer.bytes, what: "address")
        #expect(try NetcodeAddress.read(from: &reader) == NetcodeAddress(parsing: "[2001:db8::1]:443"))
    }
}
