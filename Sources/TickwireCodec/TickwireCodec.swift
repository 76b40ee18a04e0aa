/// The version of the Tickwire wire protocol this build speaks (see `Protocol/PROTOCOL.md`).
public let tickwireProtocolVersion: UInt16 = 1
