import Synchronization
import TickwireCodec

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a recording file (`Protocol/PROTOCOL.md` §9) of one connection's frames, for
/// `tickwire inspect` to read back.
///
/// ```swift
/// let recorder = try RecordingWriter(path: "session.twrec", schema: game.schema)
/// recorder.record(direction: .toClient, time: clock.now, bytes: frame)
/// recorder.close()
/// ```
///
/// Thread-safe: every call takes the writer's `Mutex`, so the socket thread and the tick
/// thread may both record. Writes go through a stdio buffer; ``close()`` flushes them.
public final class RecordingWriter: Sendable {
    private struct State {
        var file: UnsafeMutablePointer<FILE>?
        var failure: RecordingWriterError?
    }

    private let state: Mutex<State>
    /// The file being written.
    public let path: String

    /// Creates (or truncates) the file and writes the recording's header with the schema.
    ///
    /// - Parameters:
    ///   - path: Where to write.
    ///   - schema: The schema of the recorded connection.
    /// - Throws: ``RecordingWriterError`` when the file cannot be opened or written (`fopen`, `fwrite`).
    public init(path: String, schema: Schema) throws(RecordingWriterError) {
        guard let file = fopen(path, "wb") else { throw RecordingWriterError(path: path, operation: "fopen", errno: errno) }
        let header = Recording.header(schema: schema)
        guard fwrite(header, 1, header.count, file) == header.count else {
            let code = errno
            fclose(file)
            throw RecordingWriterError(path: path, operation: "fwrite", errno: code)
        }
        self.path = path
        self.state = Mutex(State(file: file, failure: nil))
    }

    deinit {
        close()
    }

    /// Appends one frame to the recording; ignored after ``close()`` or after a write failed
    /// (see ``failure``).
    ///
    /// - Parameters:
    ///   - direction: Which way the frame went.
    ///   - time: When it was sent or received; stored in whole microseconds (negative as 0).
    ///   - bytes: The frame as on the wire.
    public func record(direction: RecordingDirection, time: Timestamp, bytes: [UInt8]) {
        let micros = UInt64(max(0, time.nanoseconds / 1_000))
        let record = Recording.record(RecordedFrame(direction: direction, time: micros, bytes: bytes))
        state.withLock { state in
            guard let file = state.file, state.failure == nil else { return }
            if fwrite(record, 1, record.count, file) != record.count {
                state.failure = RecordingWriterError(path: path, operation: "fwrite", errno: errno)
            }
        }
    }

    /// The first write error, if any; recording stops at the first failure.
    public var failure: RecordingWriterError? {
        state.withLock { $0.failure }
    }

    /// Flushes and closes the file; later ``record(direction:time:bytes:)`` calls are ignored.
    public func close() {
        state.withLock { state in
            guard let file = state.file else { return }
            if fclose(file) != 0 && state.failure == nil {
                state.failure = RecordingWriterError(path: path, operation: "fclose", errno: errno)
            }
            state.file = nil
        }
    }
}

/// Why a ``RecordingWriter`` could not write its file: the C call that failed and its `errno`.
public struct RecordingWriterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file.
    public let path: String
    /// The C call that failed (`fopen`, `fwrite`, `fclose`).
    public let operation: String
    /// The `errno` it left.
    public let errno: Int32

    /// `fopen(path) failed: <strerror>`.
    public var description: String {
        "\(operation)(\(path)) failed: \(String(cString: strerror(errno)))"
    }
}
