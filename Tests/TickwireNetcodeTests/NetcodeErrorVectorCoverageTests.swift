import Foundation
import Testing
import TickwireVectorTestSupport

@testable import TickwireNetcode

/// Every error `Protocol/NETCODE.md` names in "Reading and refusals" has a vector in
/// `Protocol/vectors/netcode`, but the three that depend on the reader's side or state, and every
/// error a netcode vector expects is named there; each error vector is refused by
/// ``TickwireNetcode`` with the error it names (its values are compared by `Tools/conformance`).
/// The sibling of `ErrorVectorCoverageTests` (PROTOCOL.md section 7) and
/// `PacketErrorVectorCoverageTests` (section 1A.6).
struct NetcodeErrorVectorCoverageTests {
    /// The refusals NETCODE.md says no vector can show: they depend on the reader, not the bytes.
    static let stateRefusals: Set<String> = ["packetTypeNotAccepted", "replayed", "noEncryptionMapping"]

    /// The error names of the tables in NETCODE.md's "Reading and refusals" (their `Error` columns).
    static func documentedErrors() throws -> Set<String> {
        try ErrorVectorCoverage.documentedErrors(in: "NETCODE.md", from: "## Reading and refusals", to: "## ")
    }

    /// Every error vector of `Protocol/vectors/netcode`.
    static func errorVectors() throws -> [NetcodeVector] {
        try FileManager.default.contentsOfDirectory(atPath: NetcodeVector.directory.path).filter { $0.hasSuffix(".hex") }.sorted()
            .map { try NetcodeVector(named: $0) }.filter { $0.headers["error"] != nil }
    }

    static func errorName(_ vector: NetcodeVector) -> String {
        String((vector.headers["error"]?.first ?? "").prefix { $0 != "(" })
    }

    @Test("NETCODE.md's tables name the refusals of a datagram and of a token")
    func readsTheTables() throws {
        let named = try Self.documentedErrors()
        for error in ["truncated", "wrongSize", "invalidSequenceBytes", "authenticationFailed", "invalidAddressType"] {
            #expect(named.contains(error), "\(error) is in NETCODE.md's tables but was not read from them")
        }
        #expect(Self.stateRefusals.isSubset(of: named), "the refusals without a vector are named in the tables")
    }

    @Test("every refusal NETCODE.md names, but the reader's own, has a vector")
    func everyErrorHasAVector() throws {
        let covered = Set(try Self.errorVectors().map(Self.errorName))
        for error in try Self.documentedErrors().subtracting(Self.stateRefusals).sorted() {
            #expect(covered.contains(error), "NETCODE.md names \(error), but no vector in Protocol/vectors/netcode expects it")
        }
    }

    @Test("every error a netcode vector expects is named in NETCODE.md")
    func everyVectorErrorIsNamed() throws {
        let named = try Self.documentedErrors()
        let vectors = try Self.errorVectors()
        #expect(!vectors.isEmpty, "no netcode vector has an error line: Protocol/vectors/netcode was not read")
        for vector in vectors {
            #expect(
                named.contains(Self.errorName(vector)), "\(vector.name) expects \(Self.errorName(vector)), which NETCODE.md does not name")
        }
    }

    @Test("every netcode error vector is refused with the error it names", arguments: try errorVectors().map(\.name))
    func errorVectorIsRefused(name: String) throws {
        let vector = try NetcodeVector(named: name)
        let expected = Self.errorName(vector)
        let got: String?
        do {
            try Self.read(vector)
            got = nil
        } catch {
            got = error.code.description
        }
        #expect(got == expected, "\(name) must be refused with \(expected), got \(got ?? "no error")")
    }

    /// Reads a vector's bytes as its kind says, with its inputs, as `CONFORMANCE.md`'s netcode family reads.
    static func read(_ vector: NetcodeVector) throws(NetcodeError) {
        func text(_ key: String) -> String { vector.headers[key]?.first ?? "" }
        func number(_ key: String) -> UInt64 { UInt64(text(key)) ?? 0 }
        func key(_ name: String) throws(NetcodeError) -> NetcodeKey {
            try NetcodeKey(bytes: TickwireNetcodeTests.bytes(hex: text(name)) ?? [])
        }
        switch text("kind") {
        case "connect-token-private":
            _ = try ConnectTokenPrivate.decrypt(
                vector.bytes, protocolID: number("protocol-id"), expireTimestamp: number("expire-timestamp"),
                nonce: TickwireNetcodeTests.bytes(hex: text("nonce")) ?? [], key: try key("private-key"))
        case "connect-token":
            let token = try ConnectToken(bytes: vector.bytes)
            _ = try ConnectTokenPrivate.decrypt(
                token.encryptedPrivateData, protocolID: token.protocolID, expireTimestamp: token.expireTimestamp, nonce: token.nonce,
                key: try key("private-key"))
        case "challenge-token":
            _ = try ChallengeToken.decrypt(vector.bytes, sequence: number("challenge-sequence"), key: try key("challenge-key"))
        default:
            var window: ReplayProtection? = ReplayProtection()
            _ = try NetcodePacket.read(
                vector.bytes, key: vector.headers["key"] == nil ? nil : try key("key"), protocolID: number("protocol-id"),
                now: number("create-timestamp"), accepted: Set((0...6).compactMap { NetcodePacketType(rawValue: $0) }),
                replayProtection: &window)
        }
    }
}
