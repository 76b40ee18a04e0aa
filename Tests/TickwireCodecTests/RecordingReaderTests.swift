import Testing

@testable import TickwireCodec

@Suite("Recording format and RecordingReader")
struct RecordingReaderTests {
    static let frames = [
        RecordedFrame(direction: .toServer, time: 0, bytes: [0x06, 0x05]),
        RecordedFrame(direction: .toClient, time: 1_500, bytes: Array(repeating: 0x07, count: 300)),
        RecordedFrame(direction: .toClient, time: 1_500, bytes: []),
    ]

    static func recording(_ frames: [RecordedFrame] = frames) -> [UInt8] {
        frames.reduce(Recording.header(schema: TestSchemas.arena)) { $0 + Recording.record($1) }
    }

    @Test("a written recording reads back: schema, then each frame with direction, time and bytes")
    func roundTrip() throws {
        var reader = try RecordingReader(bytes: Self.recording())
        #expect(reader.schema == TestSchemas.arena)
        #expect(try reader.readAll() == Self.frames)
        #expect(try reader.next() == nil, "after the last record the reader reports the end")
    }

    @Test("the header is TWRECORD, version 1, then the schema's canonical encoding as a byte string")
    func headerLayout() {
        let header = Recording.header(schema: TestSchemas.arena)
        let schema = TestSchemas.arena.canonicalEncoding()
        #expect(Array(header.prefix(9)) == Array("TWRECORD".utf8) + [1])
        #expect(header[9] == UInt8(schema.count), "the arena schema's encoding is under 128 bytes: a one-byte length")
        #expect(Array(header.dropFirst(10)) == schema)
        #expect(Recording.record(RecordedFrame(direction: .toClient, time: 300, bytes: [9])) == [1, 0xAC, 0x02, 1, 9])
    }

    @Test("every truncation of a recording is refused with an error, never a trap or a partial frame")
    func truncations() throws {
        let bytes = Self.recording()
        let headerCount = Recording.header(schema: TestSchemas.arena).count
        for length in 0..<bytes.count {
            do {
                var reader = try RecordingReader(bytes: Array(bytes.prefix(length)))
                let frames = try reader.readAll()
                // Cut exactly between records: the frames before the cut, whole.
                #expect(Self.frames.starts(with: frames) && length >= headerCount, "a cut at \(length) read \(frames.count) frames")
                #expect(Self.recording(frames).count == length, "a cut inside a record at \(length) was not refused")
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test("bad magic, version, direction, and a frame over the limit are refused by name")
    func malformed() throws {
        func failure(_ bytes: [UInt8], maximumFrameBytes: Int = 1 << 20) -> String {
            do {
                var reader = try RecordingReader(bytes: bytes, maximumFrameBytes: maximumFrameBytes)
                _ = try reader.readAll()
                return "accepted"
            } catch {
                return error.description
            }
        }
        var bytes = Self.recording()
        bytes[0] = 0x58
        #expect(failure(bytes).contains("not a Tickwire recording"))
        bytes = Self.recording()
        bytes[8] = 2
        #expect(failure(bytes).contains("version 2"))
        let header = Recording.header(schema: TestSchemas.arena)
        #expect(failure(header + [3, 0, 0]).contains("unknown direction byte 3"))
        // The frame limit: a frame of exactly the limit passes, one byte more is refused.
        let frame = RecordedFrame(direction: .toClient, time: 0, bytes: Array(repeating: 1, count: 100))
        #expect(failure(header + Recording.record(frame), maximumFrameBytes: 100) == "accepted")
        #expect(failure(header + Recording.record(frame), maximumFrameBytes: 99).contains("over the limit of 99"))
        // A corrupted schema is reported as such.
        var badSchema = Self.recording()
        badSchema[10] = 7
        #expect(failure(badSchema).contains("schema"))
    }
}
