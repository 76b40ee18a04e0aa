import CommandLineSupport
import Testing

@Suite("closestName and editDistance")
struct ClosestNameTests {
    @Test(
        "edit distance counts insertions, deletions, substitutions and neighbour swaps",
        arguments: [
            ("", "", 0), ("port", "port", 0), ("", "abc", 3), ("abc", "", 3), ("prot", "port", 1), ("jsno", "json", 1),
            ("kitten", "sitting", 3), ("port-udp", "port", 4), ("tcp", "tls", 2), ("ca", "ac", 1),
        ])
    func distances(first: String, second: String, expected: Int) {
        #expect(editDistance(first, second) == expected, "the distance from '\(first)' to '\(second)'")
        #expect(editDistance(second, first) == expected, "the distance is symmetric")
    }

    @Test(
        "a typo names the option meant; something far from every option names none",
        arguments: [
            ("port-udp", "port"),  // a known name with a word added
            ("prot", "port"),  // two letters swapped
            ("bot", "bots"),  // one letter missing
            ("tick-rate", "tick"),
            ("compresion", "compression"),
            ("max-connection-per-address", "max-connections-per-address"),
            ("compr", "compression"),  // an abbreviation of exactly one name
            ("lod", nil), ("zzz", nil), ("x", nil), ("hostname-of-the-server", nil),
        ] as [(String, String?)])
    func suggestions(typed: String, expected: String?) {
        let names = [
            "host", "port", "bots", "tick", "compression", "compression-level", "max-connections-per-address",
            "max-handshakes-per-address",
        ]
        #expect(closestName(to: typed, among: names) == expected, "the suggestion for --\(typed)")
    }

    @Test("on a tie the earlier name wins; a name changed throughout and an abbreviation of two unrelated names suggest nothing")
    func ties() {
        #expect(closestName(to: "runz", among: ["runs", "rung"]) == "runs")
        #expect(closestName(to: "ab", among: ["ax", "ay"]) == "ax")
        #expect(closestName(to: "ab", among: ["cd"]) == nil, "every letter changed is not a typo")
        #expect(closestName(to: "max", among: ["max-rooms", "max-steal"]) == nil)
    }
}
