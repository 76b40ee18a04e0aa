import CommandLineSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The `tickwire` tool: benchmarks, load generation, inspection, an echo server and the conformance decoder.
// Each subcommand lives in its own file with its CommandSyntax; this file only dispatches.

/// A subcommand: what it accepts (its usage text and its parser) and what runs it.
struct Subcommand {
    /// Its options and usage text.
    let syntax: CommandSyntax
    /// Runs it with its parsed arguments (never called for `--help`).
    let run: (CommandArguments) throws -> Void
}

/// `tickwire bench KIND`: the benchmarks, in the order `tickwire bench --help` lists them.
let benchmarks: [(name: String, command: Subcommand)] = [
    ("codec", Subcommand(syntax: BenchCodecCommand.syntax, run: BenchCodecCommand.run)),
    ("ws", Subcommand(syntax: BenchWSCommand.syntax, run: BenchWSCommand.run)),
    ("client", Subcommand(syntax: BenchClientCommand.syntax, run: BenchClientCommand.run)),
    ("sim", Subcommand(syntax: BenchSimCommand.syntax, run: BenchSimCommand.run)),
    ("js", Subcommand(syntax: BenchJSCommand.syntax, run: BenchJSCommand.run)),
    ("transport", Subcommand(syntax: BenchTransportCommand.syntax, run: BenchTransportCommand.run)),
    ("all", Subcommand(syntax: BenchAllCommand.syntax, run: BenchAllCommand.run)),
]

/// The other commands, in the order `tickwire --help` lists them.
let commands: [(name: String, command: Subcommand)] = [
    ("echo", Subcommand(syntax: EchoCommand.syntax, run: EchoCommand.run)),
    ("load", Subcommand(syntax: LoadCommand.syntax, run: LoadCommand.run)),
    ("inspect", Subcommand(syntax: InspectCommand.syntax, run: InspectCommand.run)),
    ("conformance-decoder", Subcommand(syntax: ConformanceDecoderCommand.syntax, run: ConformanceDecoderCommand.run)),
]

/// `tickwire bench`, which only chooses a benchmark.
let benchSyntax = CommandSyntax(
    name: "tickwire bench", synopsis: ["KIND [options]"],
    summary: "measures the library; release builds only give figures worth keeping (swift run -c release tickwire bench …)",
    subcommands: [
        .init("codec", "codec: JSON vs binary vs delta vs zlib, on seeded scenes"),
        .init("ws", "WebSocket echo vs Python websockets and plain TCP; memory per idle connection (--tls: wss://)"),
        .init("client", "client CPU per render frame with N players: the one-entity capture against the whole world"),
        .init("sim", "host cost per client per tick (--threads: room ticks per second on 1, 2, … threads)"),
        .init("js", "the browser client's snapshot decode (JavaScript, in node) against Swift's"),
        .init("transport", "real arena clients over WebSocket and UDP through the loss lab (root): snapshot age, freezes, bytes"),
        .init("all", "every benchmark this build has, one JSON document"),
    ])

/// `tickwire` itself.
let toolSyntax = CommandSyntax(
    name: "tickwire", synopsis: ["COMMAND [options]"],
    summary: "Tickwire's tool: benchmarks, load generation, recording inspection and an echo server",
    subcommands: [
        .init("bench KIND", "benchmarks: codec, ws, client, sim, js, transport, all ('tickwire bench --help' lists them)"),
        .init("echo", "WebSocket echo server for Autobahn, interop and benchmarks"),
        .init("load", "N simulated arena players against a server or a fleet, and a report"),
        .init("inspect", "a recording's frames as text"),
        .init("conformance-decoder", "the Swift decoders behind Tools/conformance's contract (Protocol/CONFORMANCE.md)"),
        .init("help", "this text"),
    ])

/// Ends the program with a message on standard error and the usage errors' status, 2.
func fail(_ message: String) -> Never {
    StandardError.write("tickwire: \(message)\n")
    exit(2)
}

/// Parses `arguments` for `command`, prints its usage for `--help`, and runs it otherwise.
func run(_ command: Subcommand, _ arguments: [String]) throws {
    let parsed = try command.syntax.parse(arguments)
    if parsed.wantsHelp {
        print(command.syntax.usage)
        return
    }
    try command.run(parsed)
}

/// The hint for a word that names no command: the closest one, if any is close.
func suggestion(for word: String, among names: [String]) -> String {
    closestName(to: word, among: names).map { " (did you mean '\($0)'?)" } ?? ""
}

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "help" : arguments.removeFirst()
// The command whose usage a usage error points to.
var current = toolSyntax
do {
    switch command {
    case "bench":
        current = benchSyntax
        let kind = arguments.isEmpty ? "" : arguments.removeFirst()
        if kind == "--help" || kind == "-h" || kind == "help" {
            print(benchSyntax.usage)
        } else if let benchmark = benchmarks.first(where: { $0.name == kind })?.command {
            current = benchmark.syntax
            try run(benchmark, arguments)
        } else {
            // `bench all` recognizes a benchmark this build lacks by these words.
            fail(
                "bench wants one of: \(benchmarks.map(\.name).joined(separator: ", "))\(suggestion(for: kind, among: benchmarks.map(\.name)))\n\(benchSyntax.helpHint)"
            )
        }
    case "help", "--help", "-h":
        print(toolSyntax.usage)
    default:
        guard let found = commands.first(where: { $0.name == command })?.command else {
            let names = ["bench"] + commands.map(\.name)
            fail("unknown command '\(command)'\(suggestion(for: command, among: names))\n\(toolSyntax.helpHint)")
        }
        current = found.syntax
        try run(found, arguments)
    }
} catch let error as CommandArguments.UsageError {
    fail("\(error.description)\n\(current.helpHint)")
} catch {
    fail("\(error)")
}
