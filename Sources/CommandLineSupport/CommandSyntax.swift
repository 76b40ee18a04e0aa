/// What one command or subcommand accepts and how its usage text reads: its synopsis, a few
/// lines on what it does, its options (each with a one-line summary and its default) and its
/// subcommands.
///
/// Parsing (``parse(_:)``) accepts exactly the declared options and names the closest one when
/// an option is unknown; ``usage`` lists exactly the same options, so what `--help` prints
/// cannot drift from what is parsed. Every command answers `--help` and `-h`.
package struct CommandSyntax: Sendable {
    /// A subcommand as its parent's usage lists it.
    package struct Subcommand: Sendable, Equatable {
        /// The word that selects it (`serve`, `bench codec`).
        package let name: String
        /// One line saying what it does.
        package let summary: String

        /// Creates a listing line.
        ///
        /// - Parameters:
        ///   - name: The word that selects it.
        ///   - summary: One line saying what it does.
        package init(_ name: String, _ summary: String) {
            self.name = name
            self.summary = summary
        }
    }

    /// The words that run the command: `tickwire load`, `arena serve`.
    package let name: String
    /// What follows ``name`` on each synopsis line (`URL [URL …] [options]`); one line per form.
    package let synopsis: [String]
    /// A few lines on what the command does, printed under the synopsis; may be empty.
    package let summary: String
    /// The options it accepts, in the order the usage lists them (without `--help`, which every command has).
    package let options: [CommandOption]
    /// Its subcommands, for a command that has some.
    package let subcommands: [Subcommand]

    /// Declares a command.
    ///
    /// - Parameters:
    ///   - name: The words that run it.
    ///   - synopsis: What follows the name on each synopsis line.
    ///   - summary: A few lines on what it does.
    ///   - options: The options it accepts (without `--help`).
    ///   - subcommands: Its subcommands, if any.
    package init(
        name: String, synopsis: [String], summary: String = "", options: [CommandOption] = [], subcommands: [Subcommand] = []
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.options = options
        self.subcommands = subcommands
    }

    /// The declared options and `--help`.
    package var acceptedOptions: [CommandOption] { options + [.help] }

    /// The line a usage error ends with: which command to ask for its usage.
    package var helpHint: String { "run '\(name) --help' for its usage" }

    /// Parses `arguments` against the declared options.
    ///
    /// - Parameter arguments: The words after the command's name.
    /// - Returns: The parsed arguments; check ``CommandArguments/wantsHelp`` first.
    /// - Throws: ``CommandArguments/UsageError`` for an option this command does not declare
    ///   (naming the closest declared one), a value option without its value, or a flag given a value.
    package func parse(_ arguments: [String]) throws(CommandArguments.UsageError) -> CommandArguments {
        try CommandArguments(arguments, options: acceptedOptions)
    }

    /// The usage text `--help` prints: the synopsis, the summary, every option with its summary
    /// and default, and the subcommands with a line each.
    package var usage: String {
        var lines: [String] = []
        for (index, form) in synopsis.enumerated() {
            lines.append((index == 0 ? "usage: " : "       ") + name + (form.isEmpty ? "" : " " + form))
        }
        if !summary.isEmpty {
            lines.append("")
            lines.append(contentsOf: summary.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 })
        }
        if !subcommands.isEmpty {
            lines.append("")
            lines.append("commands:")
            lines.append(contentsOf: Self.columns(subcommands.map { ($0.name, $0.summary) }))
        }
        lines.append("")
        lines.append("options:")
        lines.append(
            contentsOf: Self.columns(
                acceptedOptions.map { option in
                    (option.label, option.summary + (option.defaultValue.map { " (default \($0))" } ?? ""))
                }))
        if !subcommands.isEmpty {
            lines.append("")
            lines.append("'\(name) COMMAND --help' shows a command's own usage.")
        }
        return lines.joined(separator: "\n")
    }

    /// The widest left column before a row's summary moves to a line of its own.
    private static let widestLabel = 30

    /// Two aligned columns, indented by two spaces.
    private static func columns(_ rows: [(label: String, text: String)]) -> [String] {
        let width = min(rows.map(\.label.count).max() ?? 0, widestLabel)
        return rows.flatMap { row in
            if row.label.count > width {
                return ["  " + row.label, "  " + String(repeating: " ", count: width + 2) + row.text]
            }
            return ["  " + row.label + String(repeating: " ", count: width - row.label.count + 2) + row.text]
        }
    }
}
