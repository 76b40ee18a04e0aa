import Foundation
import Testing
import TickwireVectorTestSupport

/// Every refusal `Protocol/PROTOCOL.md` 5.3.1 and 5.3.2 write in vectors has one in
/// `Protocol/vectors/tokens`, and every error a tokens vector expects is named there: read from the
/// `Error` columns of the two sections' tables (a verifier's `tokenExpired` and `tokenInvalid`, the
/// user data layout's refusals) and from the vectors' `# error:` lines. The sibling of
/// `ErrorVectorCoverageTests` (section 7) and `PacketErrorVectorCoverageTests` (section 1A.6).
@Suite("Token error vector coverage")
struct TokenErrorVectorCoverageTests {
    /// The error names of the tables of sections 5.3.1 and 5.3.2.
    static func sectionErrors() throws -> Set<String> {
        try ErrorVectorCoverage.documentedErrors(in: "PROTOCOL.md", from: "#### 5.3.1 ", to: "### 5.4 ")
    }

    /// The error each tokens vector's `# error:` line names (before any values), by vector.
    static func vectorErrors() throws -> [String: String] { try ErrorVectorCoverage.vectorErrors(in: "vectors/tokens") }

    @Test("sections 5.3.1 and 5.3.2 name a verifier's refusals and the user data layout's")
    func readsTheTables() throws {
        let named = try Self.sectionErrors()
        for error in ["tokenExpired", "tokenInvalid", "unknownLayout", "lengthExceeded", "truncated", "invalidUTF8", "nonZeroPadding"] {
            #expect(named.contains(error), "\(error) is in section 5.3's tables but was not read from them")
        }
    }

    @Test("every refusal sections 5.3.1 and 5.3.2 name has a tokens vector")
    func everyErrorHasAVector() throws {
        let covered = Set(try Self.vectorErrors().values)
        for error in try Self.sectionErrors().sorted() {
            #expect(covered.contains(error), "PROTOCOL.md 5.3 names \(error), but no vector in Protocol/vectors/tokens expects it")
        }
    }

    @Test("every error a tokens vector expects is named in sections 5.3.1 and 5.3.2")
    func everyVectorErrorIsNamed() throws {
        let named = try Self.sectionErrors()
        let errors = try Self.vectorErrors()
        #expect(errors.values.contains("tokenExpired") && errors.values.contains("tokenInvalid"), "the whole-token error vectors were read")
        for (vector, error) in errors.sorted(by: { $0.key < $1.key }) {
            #expect(named.contains(error), "\(vector) expects \(error), which PROTOCOL.md 5.3 does not name")
        }
    }
}
