import CommandLineSupport
import Testing

@testable import ArenaGame

@Suite("ArenaCommands")
struct ArenaCommandsTests {
    /// The commands by name, so that a failing case names its command and not the whole table.
    static let commands = ["arena", "arena serve", "arena join", "arena matchmaker"]

    static func command(_ name: String) throws -> CommandSyntax {
        try #require(
            [ArenaCommands.play, ArenaCommands.serve, ArenaCommands.join, ArenaCommands.matchmaker].first { $0.name == name },
            "no command \(name)")
    }

    /// The `--name` words a usage text shows (in its synopsis and its option list).
    static func optionsShown(in usage: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(usage)
        while let dashes = rest.range(of: "--") {
            let name = rest[dashes.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            if !name.isEmpty { names.insert(String(name)) }
            rest = rest[dashes.upperBound...]
        }
        return names
    }

    @Test("each command's usage starts with its own synopsis", arguments: commands)
    func synopsis(name: String) throws {
        let command = try Self.command(name)
        #expect(command.usage.hasPrefix("usage: \(command.name) "), "the usage of \(command.name) names it first")
    }

    @Test("every option the parser accepts is in the usage, and every option the usage shows is accepted", arguments: commands)
    func usageMatchesParser(name: String) throws {
        let command = try Self.command(name)
        let usage = command.usage
        for option in command.acceptedOptions {
            #expect(usage.contains("  \(option.label)"), "\(command.name)'s usage lists \(option.label)")
            let words = option.isFlag ? ["--\(option.name)"] : ["--\(option.name)", "1"]
            #expect(throws: Never.self, "\(command.name) accepts \(option.label)") { _ = try command.parse(words) }
        }
        // The synopsis and the option list show only options the parser accepts (the summary may
        // mention other commands' options, such as `arena serve --rooms N`).
        let declared = Set(command.acceptedOptions.map(\.name))
        let listed = command.synopsis.joined(separator: "\n") + (usage.components(separatedBy: "\noptions:\n").last ?? "")
        let shown = Self.optionsShown(in: listed)
        #expect(
            shown.subtracting(declared).isEmpty, "\(command.name) shows options it does not accept: \(shown.subtracting(declared).sorted())"
        )
    }

    @Test("a mistyped option names the closest one of that command, and --help is answered by every command", arguments: commands)
    func suggestionsAndHelp(name: String) throws {
        let command = try Self.command(name)
        #expect(try command.parse(["--help"]).wantsHelp)
        #expect(try command.parse(["-h"]).wantsHelp)
        let hasPort = command.options.contains { $0.name == "port" }
        let expected = "unknown option --prot" + (hasPort ? " (did you mean --port?)" : "")
        #expect {
            _ = try command.parse(["--prot", "3"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == expected
        }
    }

    @Test("arena serve --port-udp 3 suggests --port; arena join --scirpt suggests --script")
    func knownTypos() {
        #expect {
            _ = try ArenaCommands.serve.parse(["--port-udp", "3"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "unknown option --port-udp (did you mean --port?)"
        }
        #expect {
            _ = try ArenaCommands.join.parse(["ws://127.0.0.1:1/main", "--scirpt", "d5"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "unknown option --scirpt (did you mean --script?)"
        }
    }

    @Test("the defaults the serve usage shows are the server's own")
    func serveDefaults() {
        let defaults = ArenaServer.Options()
        let shown = Dictionary(uniqueKeysWithValues: ArenaCommands.serve.options.map { ($0.name, $0.defaultValue) })
        #expect(shown["port"] == "\(defaults.port)")
        #expect(shown["bots"] == "\(defaults.bots)")
        #expect(shown["tick"] == "\(defaults.tickRate)")
        #expect(shown["host"] == defaults.host)
        #expect(shown["max-connections-per-address"] == "\(defaults.maximumConnectionsPerAddress)")
        #expect(shown["log-level"] == "info")
    }
}
