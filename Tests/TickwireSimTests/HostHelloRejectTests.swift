import Testing
import TickwireCodec

@testable import TickwireSim

/// A refused first frame gets words that say what is wrong with it, with the sizes and limits.
@Suite("Host hello reject texts")
struct HostHelloRejectTests {
    /// Sends `frame` as the first frame and returns the reject it gets.
    private func reject(for frame: (RawClientBench) -> [UInt8]) -> Message.Reject? {
        let bench = RawClientBench()
        let client = bench.connect(sending: frame(bench))
        bench.run(milliseconds: 50, clients: [client])
        #expect(client.closeReason?.code == client.reject.map { $0.reason.closeCode }, "the close carries the reject's code")
        return client.reject
    }

    @Test("a 64 KiB hello payload: too large, with both sizes")
    func payloadTooLarge() {
        let reject = reject { $0.rawHello(payload: Array(repeating: 7, count: 65536)) }
        #expect(reject?.reason == .invalidHello)
        #expect(
            reject?.text == "the hello is malformed: hello payload of 65536 bytes exceeds the limit of 1024 bytes",
            "got \(reject?.text ?? "no reject")")
    }

    @Test("a hello payload at the limit (1024 bytes) is welcome; one byte more is refused")
    func payloadAtLimit() {
        let bench = RawClientBench()
        let atLimit = bench.connect(sending: bench.rawHello(payload: Array(repeating: 7, count: 1024)))
        let over = bench.connect(sending: bench.rawHello(payload: Array(repeating: 7, count: 1025)))
        bench.run(milliseconds: 50, clients: [atLimit, over])
        #expect(atLimit.welcome != nil, "1024 bytes of payload are allowed")
        #expect(
            over.reject?.text.contains("hello payload of 1025 bytes exceeds the limit of 1024 bytes") == true,
            "got \(over.reject?.text ?? "no reject")")
    }

    @Test("a 65-byte room name: too long, with both sizes")
    func roomNameTooLong() {
        let reject = reject { $0.rawHello(room: Array(repeating: UInt8(ascii: "r"), count: 65)) }
        #expect(reject?.reason == .invalidHello)
        #expect(
            reject?.text == "the hello is malformed: room name of 65 bytes exceeds the limit of 64 bytes",
            "got \(reject?.text ?? "no reject")")
    }

    @Test("a 64-byte room name is read (and refused only as an unknown room)")
    func roomNameAtLimit() {
        let reject = reject { $0.rawHello(room: Array(repeating: UInt8(ascii: "r"), count: 64)) }
        #expect(reject?.reason == .unknownRoom, "got \(String(describing: reject))")
    }

    @Test("reserved hello flags: named as such, with the value")
    func reservedFlags() {
        let reject = reject { $0.rawHello(flags: 0x04) }
        #expect(reject?.reason == .invalidHello)
        #expect(reject?.text == "the hello is malformed: hello flags 0x4 has reserved bits set", "got \(reject?.text ?? "no reject")")
    }

    @Test("a first frame of another type: names the type")
    func notHello() {
        let reject = reject { _ in [MessageType.ping.rawValue, 0] }
        #expect(reject?.text == "the first frame must be a hello, not a ping message", "got \(reject?.text ?? "no reject")")
    }

    @Test("a compressed hello: says so")
    func compressedHello() {
        let reject = reject { bench in
            var frame = bench.rawHello()
            frame[0] |= 0x80
            return frame
        }
        #expect(
            reject?.text == "the hello must not be compressed (PROTOCOL.md 5.2): its compressed flag is set",
            "got \(reject?.text ?? "no reject")")
    }

    @Test("a first frame that is not a frame at all: says why")
    func notAFrame() {
        let reject = reject { _ in [0x00] }
        #expect(
            reject?.text == "the first frame must be a hello, and it is not a valid frame: message type 0 is reserved and never sent",
            "got \(reject?.text ?? "no reject")")
    }

    @Test("another protocol version: both versions")
    func otherVersion() {
        let reject = reject { $0.rawHello(version: 7) }
        #expect(reject?.reason == .versionMismatch)
        #expect(reject?.text == "the server speaks protocol version 1, the client 7", "got \(reject?.text ?? "no reject")")
    }
}
