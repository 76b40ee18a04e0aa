import Testing
import TickwireFoundation

@testable import TickwireCodec

@Suite("FieldKind")
struct FieldKindTests {
    let position = FieldKind.float(min: -512, max: 512 - 1.0 / 64, resolution: 1.0 / 64)

    @Test("floats quantize to the nearest step, clamp at the ends, and dequantize within half a step")
    func floats() {
        #expect(position.quantize(-512) == 0)
        #expect(position.quantize(511.984375) == 65_535)
        #expect(position.quantize(1e9) == 65_535)
        #expect(position.quantize(-1e9) == 0)
        #expect(position.quantize(.nan) == 0)
        #expect(position.quantize(0) == 32_768)
        var rng = SplitMix64(seed: 5)
        for _ in 0..<1000 {
            let value = Double.random(in: -512...511.98, using: &rng)
            let error = abs(position.dequantize(position.quantize(value)) - value)
            #expect(error <= 1.0 / 128 + 1e-12, "\(value) comes back \(error) away")
        }
    }

    @Test("angles wrap around a full turn")
    func angles() {
        let heading = FieldKind.angle(bits: 10)
        #expect(heading.quantize(0) == 0)
        #expect(heading.quantize(2 * .pi) == 0)
        #expect(heading.quantize(-.pi / 2) == 768)
        #expect(heading.quantize(.pi) == 512)
        #expect(heading.quantize(2 * .pi - 0.0001) == 0, "just under a turn rounds up to 0, not 1024")
        #expect(abs(heading.dequantize(256) - .pi / 2) < 1e-12)
        #expect(heading.quantize(.infinity) == 0)
    }

    @Test("integers, booleans and enumerations clamp into range")
    func discrete() {
        let health = FieldKind.integer(min: -10, max: 100)
        #expect(health.quantize(integer: -10) == 0)
        #expect(health.quantize(integer: 500) == 110)
        #expect(health.dequantizeInteger(health.quantize(integer: 42)) == 42)
        #expect(health.quantize(42.4) == 52)
        #expect(FieldKind.bool.quantize(integer: 7) == 1)
        #expect(FieldKind.enumeration(cases: 8).quantize(integer: 9) == 7)
        let wide = FieldKind.integer(min: .min, max: .max)
        #expect(wide.dequantizeInteger(wide.quantize(integer: .min)) == .min)
        #expect(wide.dequantizeInteger(wide.quantize(integer: .max)) == .max)
    }

    @Test("interpolation: linear for numbers, shortest arc for angles, step for discrete kinds")
    func interpolation() {
        #expect(position.interpolation == .linear)
        #expect(FieldKind.integer(min: 0, max: 1).interpolation == .linear)
        #expect(FieldKind.angle(bits: 8).interpolation == .shortestArc)
        #expect(FieldKind.bool.interpolation == .step)
        #expect(FieldKind.enumeration(cases: 3).interpolation == .step)
        #expect(position.interpolate(from: 10, to: 20, fraction: 0.25) == 12.5)
        let across = FieldKind.angle(bits: 8).interpolate(from: 2 * .pi - 0.2, to: 0.2, fraction: 0.5)
        #expect(abs(across) < 1e-9 || abs(across - 2 * .pi) < 1e-9, "halfway across 0 is 0, got \(across)")
        #expect(FieldKind.bool.interpolate(from: 0, to: 1, fraction: 0.99) == 0)
        #expect(FieldKind.bool.interpolate(from: 0, to: 1, fraction: 1) == 1)
    }
}
