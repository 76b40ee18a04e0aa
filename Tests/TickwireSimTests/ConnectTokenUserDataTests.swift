import Foundation
import Testing
import TickwireVectorTestSupport

@testable import TickwireSim

/// Tickwire's layout of a connect token's user data against `Protocol/vectors/tokens/user-data-*.hex`.
@Suite("Connect token user data")
struct ConnectTokenUserDataTests {
    static let directory = VectorFile.protocolDirectory.appendingPathComponent("vectors/tokens")

    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasPrefix("user-data-") && $0.hasSuffix(".hex") }.sorted()
    }()

    @Test("the vectors are there, valid and refused ones")
    func present() {
        #expect(Self.names.filter { !$0.contains("-error-") }.count == 3)
        #expect(Self.names.filter { $0.contains("-error-") }.count == 6)
    }

    @Test("each vector decodes to its room, name and claims and re-encodes byte for byte, or is refused with its error", arguments: names)
    func vector(name: String) throws {
        let vector = try VectorFile.load("vectors/tokens/" + name)
        if let error = vector["error"] {
            do {
                let decoded = try ConnectTokenUserData(decoding: vector.bytes)
                Issue.record("\(name) decoded to \(decoded); expected \(error)")
            } catch {
                #expect(error.description == vector["error"], "\(name)")
            }
            return
        }
        let decoded = try ConnectTokenUserData(decoding: vector.bytes)
        #expect(decoded.room == vector["room"], "\(name) room")
        #expect(decoded.displayName == vector["display name"], "\(name) display name")
        #expect(decoded.claims == (try vector.hexField("claims")), "\(name) claims")
        #expect(try decoded.encoded() == vector.bytes, "\(name) re-encodes")
    }

    @Test("room and name at 64 bytes encode; at 65 they are refused; claims fill exactly what is left")
    func limits() throws {
        let room = String(repeating: "r", count: 64)
        let name = String(repeating: "n", count: 64)
        _ = try ConnectTokenUserData(room: room, displayName: name, claims: Array(repeating: 1, count: 124)).encoded()
        #expect(throws: ConnectTokenUserDataError.self) {
            try ConnectTokenUserData(room: room, displayName: name, claims: Array(repeating: 1, count: 125)).encoded()
        }
        #expect(throws: ConnectTokenUserDataError.self) { try ConnectTokenUserData(room: room + "r", displayName: "").encoded() }
        #expect(throws: ConnectTokenUserDataError.self) { try ConnectTokenUserData(room: "", displayName: name + "n").encoded() }
        _ = try ConnectTokenUserData(room: "", displayName: "", claims: Array(repeating: 1, count: 252)).encoded()
        #expect(throws: ConnectTokenUserDataError.self) {
            try ConnectTokenUserData(room: "", displayName: "", claims: Array(repeating: 1, count: 253)).encoded()
        }
    }

    @Test("an identity from user data in another layout keeps the bytes and has no room or name")
    func foreignLayout() {
        let identity = PlayerIdentity(userID: 3, userData: Array(repeating: 0, count: 256))
        #expect(identity.details == nil)
        #expect(identity.room == nil)
        #expect(identity.displayName == nil)
        #expect(identity.claims.isEmpty)
        #expect(identity.userData.count == 256)
    }
}
