/// A scripted player for headless play: a list of steps, each an input held for a number
/// of client ticks, parsed from words like `"d5 w3 space _10 sd4"`.
///
/// A word is made of move letters (`w` up, `a` left, `s` down, `d` right, combinable as
/// in `wd` for up-right) and/or `f` for fire, then an optional tick count (default 1);
/// `space` fires once; `_N` waits N ticks. After the last step the player stands still.
public struct ArenaScript: Hashable, Sendable {
    /// Why a script could not be read.
    public struct ParseError: Error, Hashable, CustomStringConvertible {
        /// The word that could not be read.
        public let word: String
        /// The error in words, with what a script may contain.
        public var description: String {
            "cannot read script word '\(word)': use move letters w a s d and f (fire) with an optional tick count, 'space', or _N to wait"
        }
    }

    /// One input and how many ticks it is held.
    public struct Step: Hashable, Sendable {
        /// The input.
        public var input: ArenaInput
        /// Ticks it is held.
        public var ticks: Int
    }

    /// The steps, in order.
    public let steps: [Step]

    /// The most ticks one word may hold its input (about a minute at 30 Hz).
    public static let maximumTicksPerWord = 2_000

    /// Parses a script.
    ///
    /// - Parameter text: Words separated by spaces.
    /// - Throws: ``ParseError`` naming the first word it cannot read.
    public init(_ text: String) throws(ParseError) {
        var steps: [Step] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) {
            if word == "space" {
                steps.append(Step(input: ArenaInput(moveX: 0, moveY: 0, fires: true), ticks: 1))
                continue
            }
            let letters = word.prefix { $0.isLetter || $0 == "_" }
            let digits = word.dropFirst(letters.count)
            guard !letters.isEmpty, digits.allSatisfy(\.isNumber) else { throw ParseError(word: word) }
            let count = digits.isEmpty ? 1 : (Int(digits) ?? -1)
            guard count >= 1, count <= Self.maximumTicksPerWord else { throw ParseError(word: word) }
            if letters == "_" {
                steps.append(Step(input: .idle, ticks: count))
                continue
            }
            var moveX = 0, moveY = 0, fires = false
            for letter in letters {
                switch letter {
                case "w": moveY -= 1
                case "s": moveY += 1
                case "a": moveX -= 1
                case "d": moveX += 1
                case "f": fires = true
                default: throw ParseError(word: word)
                }
            }
            steps.append(Step(input: ArenaInput(moveX: moveX, moveY: moveY, fires: fires), ticks: count))
        }
        self.steps = steps
    }

    /// The number of ticks the whole script lasts.
    public var duration: Int { steps.reduce(0) { $0 + $1.ticks } }

    /// The input at a tick counted from the script's start (idle after its end).
    ///
    /// - Parameter tick: Ticks since the script started, from 0.
    /// - Returns: The scripted input.
    public func input(atTick tick: Int) -> ArenaInput {
        var remaining = tick
        for step in steps {
            if remaining < step.ticks { return step.input }
            remaining -= step.ticks
        }
        return .idle
    }
}
