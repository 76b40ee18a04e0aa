#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The few trigonometric functions the rules need, from the C library.

/// The cosine of an angle in radians.
func cosine(_ angle: Double) -> Double { cos(angle) }

/// The sine of an angle in radians.
func sine(_ angle: Double) -> Double { sin(angle) }

/// The angle of a vector in radians, in (-π, π].
func angleOf(y: Double, x: Double) -> Double { atan2(y, x) }
