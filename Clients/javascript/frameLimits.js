// The frame limits of PROTOCOL.md 7.2; mirrors FrameLimits.swift.

/** The standard frame limits: every conforming peer accepts frames within them. */
export const FrameLimits = Object.freeze({
  /** @type {Readonly<{maximumFrameBytes: number, maximumBodyBytes: number, maximumInflationRatio: number, inflationRatioAllowanceBytes: number, maximumInputsPerMessage: number, maximumInputBytes: number, maximumTextBytes: number, maximumResumeTokenBytes: number, maximumRoomNameBytes: number, maximumHelloPayloadBytes: number}>} */
  standard: Object.freeze({
    maximumFrameBytes: 1 << 20,
    maximumBodyBytes: 1 << 20,
    maximumInflationRatio: 256,
    inflationRatioAllowanceBytes: 64 << 10,
    maximumInputsPerMessage: 32,
    maximumInputBytes: 512,
    maximumTextBytes: 256,
    maximumResumeTokenBytes: 64,
    maximumRoomNameBytes: 64,
    maximumHelloPayloadBytes: 1024,
  }),
});
