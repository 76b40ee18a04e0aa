import Testing
import TickwireFoundation

@testable import TickwireCodec

@Suite("Schema(canonicalEncoding:)")
struct SchemaCanonicalDecodingTests {
    @Test("random schemas survive canonicalEncoding and Schema(canonicalEncoding:) unchanged")
    func roundTrip() throws {
        var rng = SplitMix64(seed: 0x5C4E_3A)
        for _ in 0..<200 {
            let schema = try TestSchemas.randomSchema(&rng)
            let decoded = try Schema(canonicalEncoding: schema.canonicalEncoding())
            #expect(decoded == schema, "a schema of \(schema.entityTypes.count) types did not come back equal")
            #expect(decoded.fingerprint == schema.fingerprint)
        }
        #expect(try Schema(canonicalEncoding: TestSchemas.arena.canonicalEncoding()) == TestSchemas.arena)
    }

    @Test("every proper prefix of an encoding is refused, never accepted or trapping")
    func truncations() throws {
        let bytes = TestSchemas.arena.canonicalEncoding()
        for length in 0..<bytes.count {
            #expect(throws: SchemaDecodingError.self, "a prefix of \(length) bytes should be refused") {
                try Schema(canonicalEncoding: Array(bytes.prefix(length)))
            }
        }
    }

    @Test("seeded garbage and single-byte mutations never trap")
    func garbage() {
        var rng = SplitMix64(seed: 77)
        let valid = TestSchemas.arena.canonicalEncoding()
        for _ in 0..<3_000 {
            var bytes = valid
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            _ = try? Schema(canonicalEncoding: bytes)
            let noise = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? Schema(canonicalEncoding: [1] + noise)
        }
    }

    @Test("wrong version, trailing bytes, unknown kind tags, overlong varints, bad UTF-8 and non-canonical floats are refused by name")
    func malformed() throws {
        let valid = TestSchemas.arena.canonicalEncoding()
        func reason(_ bytes: [UInt8]) -> String {
            do {
                _ = try Schema(canonicalEncoding: bytes)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(reason([2] + valid.dropFirst()).contains("version 2"))
        #expect(reason(valid + [0]).contains("1 bytes follow"))
        // One type "t" with one field "f" of kind tag 9.
        #expect(reason([1, 1, 1, 0x74, 1, 1, 0x66, 9]).contains("unknown field kind tag 9"))
        // The type count as an overlong varint (0x81 0x00 is 1 in two bytes).
        #expect(reason([1, 0x81, 0x00, 1, 0x74, 0]).contains("malformed varint"))
        #expect(reason([1, 1, 1, 0xFF, 0]).contains("not valid UTF-8"))
        // −0.0 as a float minimum: a valid schema, but its canonical form writes +0.
        var negativeZero: [UInt8] = [1, 1, 1, 0x74, 1, 1, 0x66, 2]
        negativeZero += [0, 0, 0, 0, 0, 0, 0, 0x80]  // min −0.0
        negativeZero += withUnsafeBytes(of: (1.0).bitPattern.littleEndian, Array.init)  // max 1
        negativeZero += withUnsafeBytes(of: (0.5).bitPattern.littleEndian, Array.init)  // resolution 0.5
        #expect(reason(negativeZero).contains("not in canonical form"))
        // Two types called "t": decodes, but the schema is invalid.
        #expect(reason([1, 2, 1, 0x74, 0, 1, 0x74, 0]).contains("two entity types"))
    }

    @Test("limits: 256 types and 64 fields and 255-byte names pass, one more is refused before allocating")
    func limits() throws {
        func encoding(types: Int, fields: Int, nameLength: Int) -> [UInt8] {
            var bytes: [UInt8] = [1]
            appendVarint(UInt64(types), &bytes)
            for type in 0..<types {
                let name = Array(String(type).utf8)
                bytes += [UInt8(name.count)] + name
                appendVarint(UInt64(fields), &bytes)
                for field in 0..<fields {
                    let fieldName =
                        Array(String(repeating: "f", count: max(0, nameLength - String(field).count)).utf8) + Array(String(field).utf8)
                    appendVarint(UInt64(fieldName.count), &bytes)
                    bytes += fieldName + [0]  // bool
                }
            }
            return bytes
        }
        func appendVarint(_ value: UInt64, _ bytes: inout [UInt8]) {
            var rest = value
            while rest >= 0x80 { bytes.append(UInt8(rest & 0x7F) | 0x80); rest >>= 7 }
            bytes.append(UInt8(rest))
        }
        #expect(try Schema(canonicalEncoding: encoding(types: 256, fields: 1, nameLength: 1)).entityTypes.count == 256)
        #expect(throws: SchemaDecodingError.self) { try Schema(canonicalEncoding: encoding(types: 257, fields: 1, nameLength: 1)) }
        #expect(try Schema(canonicalEncoding: encoding(types: 1, fields: 64, nameLength: 2)).entityTypes[0].fields.count == 64)
        #expect(throws: SchemaDecodingError.self) { try Schema(canonicalEncoding: encoding(types: 1, fields: 65, nameLength: 2)) }
        #expect(
            try Schema(canonicalEncoding: encoding(types: 1, fields: 1, nameLength: 255)).entityTypes[0].fields[0].name.utf8.count == 255)
        #expect(throws: SchemaDecodingError.self) { try Schema(canonicalEncoding: encoding(types: 1, fields: 1, nameLength: 256)) }
        // A count far larger than the bytes left is refused before anything is reserved.
        #expect(throws: SchemaDecodingError.self) { try Schema(canonicalEncoding: [1, 0x80, 0x02]) }
        // The size limit: exactly at it gets past the size check (and fails later), one past is refused first.
        let atLimit = [1] + [UInt8](repeating: 0, count: Schema.maxCanonicalEncodingBytes - 1)
        #expect(throws: SchemaDecodingError.self) { try Schema(canonicalEncoding: atLimit) }
        do {
            _ = try Schema(canonicalEncoding: atLimit + [0])
            Issue.record("an encoding one byte over the limit was accepted")
        } catch {
            #expect(error.description.contains("exceeds the limit"), "one byte over should fail the size check, got: \(error)")
        }
        do {
            _ = try Schema(canonicalEncoding: atLimit)
        } catch {
            #expect(!error.description.contains("exceeds the limit"), "at the limit the size check should pass, got: \(error)")
        }
    }
}
