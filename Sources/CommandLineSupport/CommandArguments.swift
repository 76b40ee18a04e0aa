/// A small command-line parser: positional words, `--flag`, and `--option value` (or `--option=value`).
///
/// Enough for the `tickwire` tool and the `arena` demo without an outside package.
package struct CommandArguments {
    /// Why the arguments could not be understood, in words for the person who typed them.
    package struct UsageError: Error, CustomStringConvertible {
        /// What was wrong, for the person who typed it.
        package let description: String

        /// Creates an error with words for the person who typed the command.
        package init(description: String) { self.description = description }
    }

    /// The words that are not options, in order.
    package private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []
    private var consumed: Set<String> = []

    /// Parses `arguments`.
    ///
    /// - Parameters:
    ///   - arguments: The words after the command's name.
    ///   - valueOptions: The options that take a value (the others are flags).
    /// - Throws: ``UsageError`` when a value option has no value.
    package init(_ arguments: [String], valueOptions: Set<String>) throws(UsageError) {
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
    package mutating func flag(_ name: String) -> Bool {
        consumed.insert(name)
        return flags.contains(name)
    }

    /// The value of `--name`, if given.
    package mutating func string(_ name: String) -> String? {
        consumed.insert(name)
        return options[name]
    }

    /// The value of `--name` as an integer, or `defaultValue` when absent.
    package mutating func integer(_ name: String, default defaultValue: Int) throws(UsageError) -> Int {
        guard let text = string(name) else { return defaultValue }
        guard let value = Int(text) else { throw UsageError(description: "--\(name) wants a whole number, not '\(text)'") }
        return value
    }

    /// The value of `--name` as a number, or `defaultValue` when absent.
    package mutating func double(_ name: String, default defaultValue: Double) throws(UsageError) -> Double {
        guard let text = string(name) else { return defaultValue }
        guard let value = Double(text) else { throw UsageError(description: "--\(name) wants a number, not '\(text)'") }
        return value
    }

    /// Throws when an option or flag was given that no one asked for (a typo, most likely).
    package func rejectUnknown() throws(UsageError) {
        let unknown = Set(options.keys).union(flags).subtracting(consumed)
        if let name = unknown.sorted().first { throw UsageError(description: "unknown option --\(name)") }
    }
}
