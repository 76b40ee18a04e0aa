import Synchronization
import Testing
import TickwireFoundation

@Suite("Log sink")
struct LogSinkTests {
    @Test("records at or above the minimum level reach the handler; those below are never built")
    func filtersByLevel() {
        let received = Mutex<[LogRecord]>([])
        let sink = LogSink(minimumLevel: .notice) { record in received.withLock { $0.append(record) } }
        let built = Mutex(0)
        func message(_ text: String) -> String {
            built.withLock { $0 += 1 }
            return text
        }
        sink.log(.info, message("below"), source: "test")
        sink.log(.notice, message("at"), metadata: ["room": "main"], source: "test")
        sink.log(.error, message("above"), source: "test")
        let records = received.withLock { $0 }
        #expect(records.map(\.message) == ["at", "above"], "only notice and error pass a notice minimum")
        #expect(records.first?.metadata == ["room": "main"])
        #expect(built.withLock { $0 } == 2, "the filtered-out message must not be built")
        #expect(sink.isEnabled(for: .warning) && !sink.isEnabled(for: .debug))
    }

    @Test("the disabled sink hands nothing on, whatever the level")
    func disabled() {
        #expect(!LogSink.disabled.isEnabled(for: .critical))
        LogSink.disabled.log(.critical, "nowhere", source: "test")
    }

    @Test("a record reads as one line: level, source, message, then metadata sorted by key")
    func description() {
        let record = LogRecord(
            level: .warning, message: "accept failed; retrying in 100 ms", metadata: ["error": "EMFILE", "attempt": "2"],
            source: "listener")
        #expect(record.description == "warning listener: accept failed; retrying in 100 ms attempt=2 error=EMFILE")
    }

    @Test("levels order from trace to critical and parse from their names", arguments: LogLevel.all)
    func levelNames(level: LogLevel) {
        #expect(LogLevel(name: level.description) == level)
        #expect(level == .trace || LogLevel.all[Int(level.rank) - 1] < level)
    }

    @Test("an unknown level name parses to nil")
    func unknownLevelName() {
        #expect(LogLevel(name: "verbose") == nil)
    }

    @Test("the version reads major.minor.patch")
    func version() {
        #expect(TickwireVersion.string == "\(TickwireVersion.major).\(TickwireVersion.minor).\(TickwireVersion.patch)")
        #expect(TickwireVersion.major == 0, "0.x until the API is stable")
    }
}
