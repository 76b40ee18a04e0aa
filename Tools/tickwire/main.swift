import Tickwire

// The `tickwire` tool: benchmarks, load generation, inspection and an echo server.
// Each subcommand lives in its own file; this file only dispatches.
let arguments = Array(CommandLine.arguments.dropFirst())
print("tickwire: no subcommands yet")
