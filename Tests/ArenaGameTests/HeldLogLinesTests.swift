import ArenaGame
import Synchronization
import Testing
import TickwireFoundation

@Suite("Held log lines")
struct HeldLogLinesTests {
    @Test("lines are held until release, then written in order, and later lines at once")
    func holdsUntilRelease() {
        let written = Mutex<[String]>([])
        let held = HeldLogLines { line in written.withLock { $0.append(line) } }
        let sink = held.sink(label: "arena", minimumLevel: .warning)
        sink.log(.warning, "first", source: "client")
        sink.log(.info, "below the level", source: "client")
        sink.log(.error, "second", metadata: ["room": "main"], source: "room")
        #expect(written.withLock { $0 }.isEmpty, "nothing reaches the terminal while the game holds the screen")
        held.release()
        #expect(
            written.withLock { $0 } == ["arena: warning client: first\n", "arena: error room: second room=main\n"],
            "the held lines come out in order, formatted like the standard error sink's")
        sink.log(.critical, "after", source: "listener")
        #expect(written.withLock { $0 }.last == "arena: critical listener: after\n", "after the release, lines go straight out")
    }

    @Test("past its capacity the newest lines are kept and the release says how many were let go")
    func keepsTheNewest() {
        let written = Mutex<[String]>([])
        let held = HeldLogLines(capacity: 2) { line in written.withLock { $0.append(line) } }
        let sink = held.sink(label: "arena", minimumLevel: .trace)
        for index in 1...5 { sink.log(.warning, "line \(index)", source: "client") }
        held.release()
        let lines = written.withLock { $0 }
        #expect(lines.first?.contains("3 earlier log lines were let go") == true, "the release counts what it let go: \(lines)")
        #expect(Array(lines.dropFirst()) == ["arena: warning client: line 4\n", "arena: warning client: line 5\n"])
    }
}
