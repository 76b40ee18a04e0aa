/// A small command-line parser: positional words, `--flag`, and `--option value`.
///
/// Enough for the `tickwire` tool's subcommands without an outside package.
struct CommandArguments {
    /// Why the arguments could not be understood, in words for the person who typed them.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []
    private var consumed: Set<String> = []

    /// Parses `arguments`; `valueOptions` names the options that take a value.
    init(_ arguments: [String], valueOptions: Set<String>) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    options[String(name[..<equals])] = String(name[name.index(after: equals)...])
                } else if valueOptions.contains(name) {
                    guard index + 1 < arguments.count else { throw UsageError(description: "--\(name) needs a value") }
                    options[name] = arguments[index + 1]
                    index += 1
                } else {
                    flags.insert(name)
                }
            } else {
                positionals.append(word)
            }
            index += 1
        }
    }

    /// Whether `--name` was given.
    mutating func flag(_ name: String) -> Bool {
        consumed.insert(name)
        return flags.contains(name)
    }

    /// The value of `--name`, if given.
    mutating func string(_ name: String) -> String? {
        consumed.insert(name)
        return options[name]
    }

    /// The value of `--name` as an integer, or `defaultValue` when absent.
    mutating func integer(_ name: String, default defaultValue: Int) throws(UsageError) -> Int {
        guard let text = string(name) else { return defaultValue }
        guard let value = Int(text) else { throw UsageError(description: "--\(name) wants a whole number, not '\(text)'") }
        return value
    }

    /// The value of `--name` as a number, or `defaultValue` when absent.
    mutating func double(_ name: String, default defaultValue: Double) throws(UsageError) -> Double {
        guard let text = string(name) else { return defaultValue }
        guard let value = Double(text) else { throw UsageError(description: "--\(name) wants a number, not '\(text)'") }
        return value
    }

    /// Throws when an option or flag was given that no one asked for (a typo, most likely).
    func rejectUnknown() throws(UsageError) {
        let unknown = Set(options.keys).union(flags).subtracting(consumed)
        if let name = unknown.sorted().first { throw UsageError(description: "unknown option --\(name)") }
    }
}
