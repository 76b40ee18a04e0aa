// Reconnect backoff with jitter; mirrors ReconnectPolicy.swift.

/** Exponential backoff from `baseDelay` to `maximumDelay`, shortened by up to `jitter` at random. Seconds. */
export class ReconnectPolicy {
  /**
   * @param {{isEnabled?: boolean, baseDelay?: number, maximumDelay?: number, jitter?: number, maximumAttempts?: number}} [options]
   *   Defaults: enabled, 1 s, 30 s, 0.5, unlimited attempts.
   */
  constructor(options = {}) {
    this.isEnabled = options.isEnabled ?? true;
    this.baseDelay = options.baseDelay ?? 1;
    this.maximumDelay = options.maximumDelay ?? 30;
    this.jitter = Math.min(Math.max(options.jitter ?? 0.5, 0), 1);
    /** @type {number | undefined} */
    this.maximumAttempts = options.maximumAttempts;
  }

  /**
   * @param {number} attempt 1 for the first retry.
   * @param {number} unitRandom A random number in 0 … 1.
   * @returns {number} Seconds to wait: `min(max, base × 2^(attempt−1)) × (1 − jitter × random)`.
   */
  delay(attempt, unitRandom) {
    const exponent = Math.min(Math.max(attempt - 1, 0), 62);
    const ceiling = Math.min(this.maximumDelay, this.baseDelay * 2 ** exponent);
    return ceiling * (1 - this.jitter * Math.min(Math.max(unitRandom, 0), 1));
  }
}
