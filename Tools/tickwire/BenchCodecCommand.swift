import CommandLineSupport

/// `tickwire bench codec [--json]`: to be written by the codec work (issue 2).
enum BenchCodecCommand {
    static func run(_ arguments: [String]) throws {
        var parsed = try CommandArguments(arguments, valueOptions: [])
        _ = parsed.flag("json")
        try parsed.rejectUnknown()
        fail("bench codec is not written yet")
    }
}
