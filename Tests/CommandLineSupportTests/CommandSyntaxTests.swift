import CommandLineSupport
import Testing

@Suite("CommandSyntax")
struct CommandSyntaxTests {
    static let serve = CommandSyntax(
        name: "demo serve", synopsis: ["[options]"], summary: "runs a server",
        options: [
            .value("port", "P", default: "7777", "the port to listen on"),
            .value("host", "H", default: "0.0.0.0", "the address to listen on"),
            .flag("no-metrics", "no GET /metrics"),
        ])

    @Test("declared options parse as before: spaced and joined values, flags, positionals")
    func parsing() throws {
        var parsed = try Self.serve.parse(["extra", "--port", "80", "--host=::1", "--no-metrics"])
        #expect(!parsed.wantsHelp)
        #expect(parsed.positionals == ["extra"])
        #expect(try parsed.integer("port", default: 7777) == 80)
        #expect(parsed.string("host") == "::1")
        let noMetrics = parsed.flag("no-metrics")
        #expect(noMetrics)
        try parsed.rejectUnknown()
    }

    @Test("an undeclared option is a usage error that names the closest declared one")
    func unknownOption() throws {
        #expect {
            _ = try Self.serve.parse(["--port-udp", "3"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "unknown option --port-udp (did you mean --port?)"
        }
        #expect {
            _ = try Self.serve.parse(["--verbose"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "unknown option --verbose"
        }
        #expect {
            _ = try Self.serve.parse(["-p", "3"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "unknown option -p (did you mean --port?)"
        }
        #expect {
            _ = try Self.serve.parse(["-x"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "unknown option -x (options are long; only -h is short)"
        }
        #expect(try Self.serve.parse(["-", "-5"]).positionals == ["-", "-5"], "a lone dash and a negative number are words")
        #expect {
            _ = try Self.serve.parse(["--no-metrics=yes"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "--no-metrics takes no value"
        }
        #expect {
            _ = try Self.serve.parse(["--port"])
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "--port needs a value (--port P)"
        }
    }

    @Test("--help and -h ask for the usage, even beside a mistyped option")
    func help() throws {
        #expect(try Self.serve.parse(["--help"]).wantsHelp)
        #expect(try Self.serve.parse(["-h"]).wantsHelp)
        #expect(try Self.serve.parse(["--prot", "1", "--help"]).wantsHelp)
        #expect(try !Self.serve.parse(["--host", "-h"]).wantsHelp, "-h as an option's value is that value")
    }

    @Test("the usage lists the synopsis, the summary, every declared option with its default, and --help")
    func usage() {
        let usage = Self.serve.usage
        let lines = usage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "usage: demo serve [options]")
        #expect(lines.contains("  runs a server"))
        #expect(lines.contains("  --port P      the port to listen on (default 7777)"))
        #expect(lines.contains("  --no-metrics  no GET /metrics"))
        for option in Self.serve.acceptedOptions {
            #expect(usage.contains(option.label), "the usage lists \(option.label)")
        }
        #expect(usage.contains("--help"))
    }

    @Test("a command with subcommands lists them and says how to see each one's usage")
    func subcommands() {
        let tool = CommandSyntax(
            name: "demo", synopsis: ["COMMAND [options]"],
            subcommands: [.init("serve", "runs a server"), .init("join", "joins one")])
        let usage = tool.usage
        #expect(usage.contains("commands:\n  serve  runs a server\n  join   joins one"))
        #expect(usage.contains("'demo COMMAND --help' shows a command's own usage."))
        #expect(tool.helpHint == "run 'demo --help' for its usage")
    }

    @Test("a declared option that this form of the command did not read is reported as such")
    func declaredButUnused() throws {
        let parsed = try Self.serve.parse(["--host", "x"])
        #expect {
            try parsed.rejectUnknown()
        } throws: { error in
            (error as? CommandArguments.UsageError)?.description == "--host does not apply with these arguments"
        }
    }
}
