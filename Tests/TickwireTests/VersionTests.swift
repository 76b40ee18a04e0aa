import Foundation
import Testing
import Tickwire

/// One version for the whole package: the Swift code, the JavaScript client and the changelog.
@Suite("Package version")
struct VersionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    @Test("the JavaScript client's package.json carries the Swift package's version")
    func javaScriptPackage() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("Clients/javascript/package.json"))
        let package = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(package["version"] as? String == TickwireVersion.string, "Clients/javascript/package.json and TickwireVersion differ")
        #expect(package["license"] as? String == "Apache-2.0", "the client is under the package's license (LICENSE)")
    }

    @Test("CHANGELOG.md's newest release is the version the code reports")
    func changelog() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let releases = text.split(separator: "\n").filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        let newest = try #require(releases.first, "CHANGELOG.md names no release")
        #expect(
            newest.hasPrefix("## [\(TickwireVersion.string)]"),
            "CHANGELOG.md's newest release is \(newest), the code says \(TickwireVersion.string)")
    }
}
