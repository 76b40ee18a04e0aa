/// One option a command accepts: `--name` alone (a flag) or `--name VALUE`, with the line its
/// usage text shows.
///
/// A command declares its options once, in its ``CommandSyntax``; the parser accepts exactly
/// those and the usage text lists exactly those, so the two cannot drift apart.
package struct CommandOption: Sendable, Equatable {
    /// The name without its dashes: `port` for `--port`.
    package let name: String
    /// What the value is called in the usage text (`N`, `FILE`), or `nil` for a flag.
    package let valuePlaceholder: String?
    /// One line saying what the option does.
    package let summary: String
    /// The value used when the option is not given, as the usage text shows it, if there is one.
    package let defaultValue: String?

    /// Whether the option stands alone, taking no value.
    package var isFlag: Bool { valuePlaceholder == nil }

    /// An option that takes a value: `--name VALUE`, or `--name=VALUE`.
    ///
    /// - Parameters:
    ///   - name: The name without its dashes.
    ///   - placeholder: What the usage text calls the value (`N`, `FILE`).
    ///   - defaultValue: The value used when the option is absent, as text, or `nil` when there is none.
    ///   - summary: One line saying what the option does.
    /// - Returns: The option.
    package static func value(_ name: String, _ placeholder: String, default defaultValue: String? = nil, _ summary: String) -> Self {
        Self(name: name, valuePlaceholder: placeholder, summary: summary, defaultValue: defaultValue)
    }

    /// An option that takes no value: `--name`.
    ///
    /// - Parameters:
    ///   - name: The name without its dashes.
    ///   - summary: One line saying what the option does.
    /// - Returns: The option.
    package static func flag(_ name: String, _ summary: String) -> Self {
        Self(name: name, valuePlaceholder: nil, summary: summary, defaultValue: nil)
    }

    /// The option as the usage text's left column writes it: `--port P` or `--json`.
    package var label: String { valuePlaceholder.map { "--\(name) \($0)" } ?? "--\(name)" }

    /// `--help` and `-h`, which every command answers with its own usage.
    package static let help = flag("help", "print this command's usage and exit (also -h)")
}
