/// A small command-line parser: positional words, `--flag`, and `--option value` (or `--option=value`).
///
/// Enough for the `tickwire` tool and the `arena` demo without an outside package. A command
/// parses through its ``CommandSyntax``, which declares its options: an undeclared one is a
/// usage error that names the closest declared one, and `--help` or `-h` sets ``wantsHelp``.
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
    /// The declared options' names, in order.
    private let declared: [String]

    /// Whether `--help` or `-h` was given; the command then prints its usage and does nothing else.
    package private(set) var wantsHelp = false

    /// Parses `arguments` against the options a command declares.
    ///
    /// `--help` and `-h` set ``wantsHelp``; when they are given, the other errors below are not
    /// thrown, so that a command's usage is shown however the rest was mistyped.
    ///
    /// - Parameters:
    ///   - arguments: The words after the command's name.
    ///   - options: Every option the command accepts.
    /// - Throws: ``UsageError`` for an option not among `options` (naming the closest one, see
    ///   ``closestName(to:among:)``), a short option other than `-h`, a value option without its
    ///   value, or a flag given a value.
    package init(_ arguments: [String], options declaredOptions: [CommandOption]) throws(UsageError) {
        let names = declaredOptions.map(\.name)
        declared = names
        var firstError: UsageError?
        func note(_ error: UsageError) { if firstError == nil { firstError = error } }
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "-h" || word == "--help" {
                wantsHelp = true
                continue
            }
            guard word.hasPrefix("--") else {
                // `-p`: options are long, and only -h has a short form.
                if word.count > 1, word.hasPrefix("-"), let letter = word.dropFirst().first, letter.isLetter {
                    let meant =
                        names.first { $0.first == letter }.map { " (did you mean --\($0)?)" } ?? " (options are long; only -h is short)"
                    note(UsageError(description: "unknown option \(word)\(meant)"))
                } else {
                    positionals.append(word)
                }
                continue
            }
            var name = String(word.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = declaredOptions.first(where: { $0.name == name }) else {
                note(Self.unknownOption(name, among: names))
                continue
            }
            if option.isFlag {
                if value != nil { note(UsageError(description: "--\(name) takes no value")) }
                flags.insert(name)
                continue
            }
            if value == nil {
                guard index < arguments.count else {
                    note(UsageError(description: "--\(name) needs a value (\(option.label))"))
                    continue
                }
                value = arguments[index]
                index += 1
            }
            options[name] = value
        }
        if let firstError, !wantsHelp { throw firstError }
    }

    /// The error for an option no one declared: `unknown option --port-udp (did you mean --port?)`.
    private static func unknownOption(_ name: String, among names: [String]) -> UsageError {
        let suggestion = closestName(to: name, among: names).map { " (did you mean --\($0)?)" } ?? ""
        return UsageError(description: "unknown option --\(name)\(suggestion)")
    }

    /// Notes that the command reads `--name`; reading one it never declared is a programming
    /// error (the usage text would not list it), caught by an assertion in debug builds.
    private mutating func consume(_ name: String) {
        assert(declared.contains(name), "--\(name) is read but not declared in the command's CommandSyntax")
        consumed.insert(name)
    }

    /// Whether `--name` was given.
    package mutating func flag(_ name: String) -> Bool {
        consume(name)
        return flags.contains(name)
    }

    /// The value of `--name`, if given.
    package mutating func string(_ name: String) -> String? {
        consume(name)
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

    /// Throws when an option or flag was given that no one asked for: a typo (named with the
    /// closest option that was asked for), or a declared option that this form of the command
    /// does not use (`bench sim --rooms` without `--threads`).
    package func rejectUnknown() throws(UsageError) {
        let unknown = Set(options.keys).union(flags).subtracting(consumed)
        guard let name = unknown.sorted().first else { return }
        if declared.contains(name) {
            throw UsageError(description: "--\(name) does not apply with these arguments")
        }
        throw Self.unknownOption(name, among: declared)
    }
}
