import CommandLineSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The `tickwire` tool: benchmarks, load generation, inspection and an echo server.
// Each subcommand lives in its own file; this file only dispatches.

let usage = """
    usage: tickwire <command> [options]

    commands:
      bench codec [--json] [--runs N] [--scene NAME] [--no-json]
                               codec benchmark: JSON vs binary vs delta vs zlib, three scenes
      bench ws [--json] [--seconds S] [--rounds R] [--idle N] [--no-python] [--tls]
                               WebSocket echo benchmark vs Python websockets and plain TCP;
                               memory per idle connection; --sizes 64,1024,65536 --connections 1,100
                               --in-flight 1,16 run a subset of the cases (for profiling); --tls: our wss echo
                               vs Python websockets+ssl and our ws echo, CPU µs per message, and memory per
                               idle TLS connection (its subsets: --sizes 64,65536 --connections 10,100)
      bench client [--entities 1000] [--frames 600] [--batch 32] [--path both|whole|narrow] [--json]
                               client CPU per render frame (predictedLocalEntity, render()) with N players,
                               the game's one-entity capture against the whole-world default
      bench sim [--json]       host cost per client per tick, 10/100/1000 clients, with and without interest
      bench js [--json] [--runs N]
                               the browser client's snapshot decode (JavaScript, in node) against Swift's
      bench sim --threads 1,2 [--rooms 40] [--clients 25] [--passes 150] [--json]
                               room ticks per second on 1, 2, … tick threads (arena rooms flat out)
      bench all [--json]       every benchmark this build has (codec, ws, wss, sim), one JSON document
      echo [--port P] [--host H] [--tcp] [--no-compression] [--max-message-bytes 67108864]
           [--tls-cert CHAIN.pem --tls-key KEY.pem]
           [--max-connections-per-address 0] [--max-handshakes-per-address 0] [--write-timeout 10]
           [--output-budget-bytes 268435456]
                               WebSocket echo server (permessage-deflate on) for Autobahn and interop;
                               prints the bound port; --tcp: plain TCP echo (benchmark baseline);
                               --tls-cert/--tls-key: wss:// (TLS 1.2/1.3);
                               per-address limits off by default (0), every bench client is 127.0.0.1
      load ws://HOST:PORT/ROOM [ws://HOST2:PORT …] [--clients 100] [--duration 60] [--ramp 10] [--json] [--loops 2] [--rate 30] [--drivers 1]
           [--rooms N]         (or wss://HOST:PORT/ROOM [--ca CA.pem]) N simulated arena players over real WebSockets; reports connections, snapshots,
                               bytes per client, snapshot age, the server's tick p99 and CPU, and its own CPU;
                               --rooms spreads them over the rooms of `arena serve --rooms N` (main, room2, ...);
                               several URLs: a fleet's entries, spread over the players, redirects followed
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
        case "ws": try BenchWSCommand.run(arguments)
        case "sim": try BenchSimCommand.run(arguments)
        case "client": try BenchClientCommand.run(arguments)
        case "js": try BenchJSCommand.run(arguments)
        case "all": try BenchAllCommand.run(arguments)
        default: fail("bench wants one of: codec, ws, sim, client, js, all\n\n\(usage)")
        }
    case "echo": try EchoCommand.run(arguments)
    case "load": try LoadCommand.run(arguments)
    case "inspect": try InspectCommand.run(arguments)
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
