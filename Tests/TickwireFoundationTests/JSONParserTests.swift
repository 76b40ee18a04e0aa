import Testing
import TickwireFoundation

@Suite("JSON parser")
struct JSONParserTests {
    @Test("reads every kind of value, with whitespace around and between")
    func readsValues() throws {
        let value = try JSONParser.parse(
            #" { "a" : [1, -2.5e2, 0, true, false, null], "b": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "c": {} , "d": [] } "#)
        #expect(value["a"] == .array([.number(1), .number(-250), .number(0), .bool(true), .bool(false), .null]))
        #expect(value["b"]?.stringValue == "x\"\\/\u{8}\u{c}\n\r\té😀")
        #expect(value["c"] == .object([:]))
        #expect(value["d"] == .array([]))
        #expect(value["missing"] == nil)
        #expect(try JSONParser.parse("\"é\"").stringValue == "é", "raw UTF-8 in a string")
    }

    @Test("refuses each malformed text with its kind and the byte where it was found")
    func refusals() {
        let cases: [(String, JSONError)] = [
            ("", JSONError(.truncated, at: 0)),
            ("[1,", JSONError(.truncated, at: 3)),
            ("\"abc", JSONError(.truncated, at: 4)),
            ("[1 2]", JSONError(.unexpectedByte(UInt8(ascii: "2")), at: 3)),
            ("{1:2}", JSONError(.unexpectedByte(UInt8(ascii: "1")), at: 1)),
            ("tru", JSONError(.truncated, at: 3)),
            ("nul1", JSONError(.unexpectedByte(UInt8(ascii: "1")), at: 3)),
            ("01", JSONError(.invalidNumber, at: 0)),
            ("-", JSONError(.invalidNumber, at: 0)),
            ("1.", JSONError(.invalidNumber, at: 0)),
            ("1e", JSONError(.invalidNumber, at: 0)),
            ("1e999", JSONError(.invalidNumber, at: 0)),
            ("+1", JSONError(.unexpectedByte(UInt8(ascii: "+")), at: 0)),
            (".5", JSONError(.unexpectedByte(UInt8(ascii: ".")), at: 0)),
            ("\"a\u{1}\"", JSONError(.controlCharacter, at: 2)),
            (#""\x""#, JSONError(.invalidEscape, at: 1)),
            (#""\u12G4""#, JSONError(.invalidEscape, at: 5)),
            (#""\ud800""#, JSONError(.invalidUTF8, at: 1)),
            (#""\ud800\u0041""#, JSONError(.invalidUTF8, at: 1)),
            (#""\udc00""#, JSONError(.invalidUTF8, at: 1)),
            (#"{"a":1,"a":2}"#, JSONError(.duplicateMember("a"), at: 7)),
            ("1 2", JSONError(.trailingData, at: 2)),
            ("{} x", JSONError(.trailingData, at: 3)),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try JSONParser.parse(text) }
        }
        #expect(throws: JSONError(.invalidUTF8, at: 0)) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test("nests to the maximum depth, and refuses one level more")
    func depthLimit() throws {
        let limit = JSONParser.maximumDepth
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONParser.parse(atLimit) }
        let past = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(throws: JSONError(.tooDeep(limit: limit), at: limit)) { try JSONParser.parse(past) }
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(throws: JSONError(.tooDeep(limit: limit), at: limit * 5)) { try JSONParser.parse(objects) }
        // A hostile depth is refused at the limit, without recursing further.
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONError(.tooDeep(limit: limit), at: limit)) { try JSONParser.parse(hostile) }
    }

    @Test("text writes compact JSON that reads back to the same value, members sorted")
    func textRoundTrip() throws {
        let value = JSONValue.object([
            "z": .number(1_700_000_000), "a": .string("q\"\\\n\u{1}é"), "m": .array([.null, .bool(true), .number(0.5)]),
        ])
        #expect(value.text == #"{"a":"q\"\\\n\u0001é","m":[null,true,0.5],"z":1700000000}"#)
        #expect(try JSONParser.parse(value.text) == value)
        #expect(JSONValue.number(-3).integerValue == -3)
        #expect(JSONValue.number(1.5).integerValue == nil)
        #expect(JSONValue.number(1e300).integerValue == nil)
    }
}
