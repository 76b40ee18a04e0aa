import Testing
import Tickwire

@testable import ArenaGame

@Suite("SourceAddressList: the local addresses `tickwire load` spreads its clients over")
struct SourceAddressListTests {
    @Test(
        "ranges and comma lists read as the addresses they name, in order",
        arguments: [
            ("127.0.0.2", ["127.0.0.2"]),
            ("127.0.0.2-127.0.0.4", ["127.0.0.2", "127.0.0.3", "127.0.0.4"]),
            ("127.0.0.254-127.0.1.1", ["127.0.0.254", "127.0.0.255", "127.0.1.0", "127.0.1.1"]),
            ("127.0.0.9, 127.0.0.2-127.0.0.3,::1", ["127.0.0.9", "127.0.0.2", "127.0.0.3", "::1"]),
            ("127.0.0.5-127.0.0.5", ["127.0.0.5"]),
        ]
    )
    func parses(text: String, expected: [String]) throws {
        #expect(try SourceAddressList(parsing: text).addresses == expected, "'\(text)'")
    }

    @Test(
        "malformed lists are refused with a sentence naming the part",
        arguments: [
            ("", "empty entry"),
            ("127.0.0.2,,127.0.0.3", "empty entry"),
            ("127.0.0.9-127.0.0.2", "runs backwards"),
            ("127.0.0.2-::1", "two IPv4 addresses"),
            ("127.0.0.2-127.0.0.3-127.0.0.4", "not a numeric address"),
            ("127.0.0.256", "not a numeric address"),
            ("localhost", "not a numeric address"),
            ("10.0.0.0-10.1.0.0", "more than 65536"),
        ]
    )
    func refuses(text: String, expected: String) {
        #expect {
            _ = try SourceAddressList(parsing: text)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test("clients take the addresses round robin, as port-0 socket addresses")
    func roundRobin() throws {
        let list = try SourceAddressList(parsing: "127.0.0.2-127.0.0.4")
        #expect(
            (0..<7).map { list.address(forClient: $0)?.host } == [
                "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.2",
            ])
        #expect(list.address(forClient: 5)?.port == 0)
        #expect(list.clientsPerAddress(clients: 200) == 67)
        #expect(list.description == "127.0.0.2…127.0.0.4 (3 addresses)")
        #expect(SourceAddressList(addresses: ["127.0.0.2"]).description == "127.0.0.2")
    }

    @Test("the default spreads loopback runs 16 clients to an address from 127.0.0.2, and stays out of the way elsewhere")
    func defaultList() throws {
        let list = try #require(SourceAddressList.defaultList(clients: 200, hosts: ["127.0.0.1"], isLoopbackWide: true))
        #expect(list.addresses.count == 13 && list.addresses.first == "127.0.0.2" && list.addresses.last == "127.0.0.14")
        #expect(list.clientsPerAddress(clients: 200) <= 16, "every address under the default handshake budget")
        #expect(SourceAddressList.defaultList(clients: 20_000, hosts: ["localhost"], isLoopbackWide: true)?.addresses.last == "127.0.4.227")
        #expect(SourceAddressList.defaultList(clients: 16, hosts: ["127.0.0.1"], isLoopbackWide: true) == nil, "one address is enough")
        #expect(
            SourceAddressList.defaultList(clients: 200, hosts: ["127.0.0.1", "10.0.0.5"], isLoopbackWide: true) == nil,
            "not all on loopback")
        #expect(SourceAddressList.defaultList(clients: 200, hosts: ["::1"], isLoopbackWide: true) == nil, "IPv6 loopback has one address")
        #expect(SourceAddressList.defaultList(clients: 200, hosts: ["127.0.0.1"], isLoopbackWide: false) == nil, "Darwin: no default")
    }
}
