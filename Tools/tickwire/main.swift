#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CommandLineSupport

// The `tickwire` tool: benchmarks, load generation, inspection and an echo server.
// Each subcommand lives in its own file; this file only dispatches.

let usage = """
    usage: tickwire <command> [options]

    commands:
      bench codec [--json]     codec benchmark: JSON vs binary vs delta vs zlib, three scenes
      bench all [--json]       every benchmark this build has (codec, ws, sim), one JSON document
      inspect FILE             a recording's frames as text (--hex: hex lines; --help)
      help                     this text
    """

func fail(_ message: String) -> Never {
    StandardError.write("tickwire: \(message)\n")
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "help" : arguments.removeFirst()
do {
    switch command {
    case "bench":
        let scope = arguments.isEmpty ? "" : arguments.removeFirst()
        switch scope {
        case "codec": try BenchCodecCommand.run(arguments)
        case "all": try BenchAllCommand.run(arguments)
        default: fail("bench wants one of: codec, all\n\n\(usage)")
        }
    case "inspect":
        try InspectCommand.run(arguments)
    case "help", "--help", "-h":
        print(usage)
    default:
        fail("unknown command '\(command)'\n\n\(usage)")
    }
} catch let error as CommandArguments.UsageError {
    fail(error.description)
} catch {
    fail("\(error)")
}
