// The net graph's lines (`n`), as the terminal shows them (ArenaClient.netGraphLines): ping,
// jitter, interpolation, sizes, rates and counts, with the rates measured over the last second.

/** @typedef {import('@tickwire/client').ClientSession} ClientSession */
/** @typedef {import('@tickwire/client').ReconnectingSession} ReconnectingSession */

/** Rates in and out over a sliding second. */
export class NetGraph {
  constructor() {
    /** @type {Array<{time: number, bytesIn: number, bytesOut: number}>} One sample per tick, the last second's. */
    this.samples = [];
  }

  /**
   * Records the session's byte counts now; keeps about a second of samples.
   * @param {ClientSession} session
   * @param {number} now Seconds.
   */
  sample(session, now) {
    this.samples.push({ time: now, bytesIn: session.metrics.bytesIn, bytesOut: session.metrics.bytesOut });
    while (this.samples.length > 2 && now - this.samples[1].time >= 1) this.samples.shift();
  }

  /** @returns {{bytesIn: number, bytesOut: number}} Bytes per second over the samples held. */
  get rates() {
    const first = this.samples[0], last = this.samples[this.samples.length - 1];
    if (!first || !last || last.time <= first.time) return { bytesIn: 0, bytesOut: 0 };
    const span = last.time - first.time;
    return { bytesIn: (last.bytesIn - first.bytesIn) / span, bytesOut: (last.bytesOut - first.bytesOut) / span };
  }

  /**
   * @param {ClientSession} session
   * @param {ReconnectingSession | import('@tickwire/client').MatchmadeSession} client
   * @returns {string[]} The lines.
   */
  lines(session, client) {
    const timing = session.timing, metrics = session.metrics, rates = this.rates;
    const ms = (/** @type {number} */ seconds) => (seconds * 1000).toFixed(0);
    const kbit = (/** @type {number} */ bytes) => (bytes * 8 / 1000).toFixed(1);
    return [
      `ping ${ms(timing.roundTrip)} ms  jitter ${ms(timing.roundTripJitter)} ms`,
      `interp ${ms(timing.interpolationDelay)} ms  buffer ${timing.bufferDepth}  rate ${timing.playbackRate.toFixed(2)}`,
      `snapshot ${metrics.lastSnapshotBytes} B  in ${kbit(rates.bytesIn)} kbit/s  out ${kbit(rates.bytesOut)} kbit/s`,
      `tick ${session.tickRate} Hz  snapshots ${metrics.snapshotsReceived} (${metrics.fullSnapshotsReceived} full)`,
      `undecodable ${metrics.snapshotsUndecodable}  extrapolated ${metrics.extrapolatedFrames}`,
      `${client.state.kind}  reconnects ${client.reconnects}`,
    ];
  }
}
