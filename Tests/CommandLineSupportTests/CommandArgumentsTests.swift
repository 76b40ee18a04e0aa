import CommandLineSupport
import Testing

@Suite("CommandArguments")
struct CommandArgumentsTests {
    @Test("positionals, flags, spaced and joined values are told apart")
    func parsing() throws {
        var arguments = try CommandArguments(
            ["join", "ws://host:1/room", "--name", "ann", "--lag=80", "--dump"],
            options: [
                .value("name", "NAME", "a name"), .value("lag", "MS", "a lag"), .value("loss", "PERCENT", "a loss"),
                .flag("dump", "dumps"), .flag("json", "as JSON"),
            ]
        )
        #expect(arguments.positionals == ["join", "ws://host:1/room"])
        #expect(arguments.string("name") == "ann")
        #expect(try arguments.integer("lag", default: 0) == 80)
        let dump = arguments.flag("dump"), json = arguments.flag("json")
        #expect(dump)
        #expect(!json)
        #expect(try arguments.double("loss", default: 2.5) == 2.5)
        try arguments.rejectUnknown()
    }

    @Test("a missing value, a bad number and an unknown option are usage errors")
    func errors() throws {
        let port = [CommandOption.value("port", "P", "a port")]
        #expect(throws: CommandArguments.UsageError.self) { try CommandArguments(["--port"], options: port) }
        let bad = try CommandArguments(["--port", "eighty"], options: port)
        #expect(throws: CommandArguments.UsageError.self) {
            var arguments = bad
            _ = try arguments.integer("port", default: 0)
        }
        #expect {
            _ = try CommandArguments(["--jsno"], options: [.flag("json", "as JSON")])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "unknown option --jsno (did you mean --json?)"
        }
    }
}

@Suite("decimalText")
struct DecimalTextTests {
    @Test("rounds to the decimals asked for, keeps zeros, signs negatives, and writes - for non-numbers")
    func formatting() {
        #expect(decimalText(3.14159, places: 2) == "3.14")
        #expect(decimalText(2.5, places: 0) == "3")
        #expect(decimalText(0.05, places: 2) == "0.05")
        #expect(decimalText(-1.006, places: 2) == "-1.01")
        #expect(decimalText(-0.0001, places: 2) == "0.00")
        #expect(decimalText(12, places: 1) == "12.0")
        #expect(decimalText(.nan, places: 1) == "-")
    }
}
