// Names of reject and disconnect reasons (PROTOCOL.md 5.5, 5.10), for messages a person reads.

/**
 * @param {number} reason
 * @returns {string} The disconnect reason's name (PROTOCOL.md 5.10).
 */
export function disconnectReasonName(reason) {
  return ['unspecified', 'leaving', 'server shutting down', 'kicked', 'timed out', 'protocol error', 'too slow', 'replaced', 'moved', 'kicked, may rejoin'][reason] ?? `reason ${reason}`;
}

/**
 * @param {number} reason
 * @returns {string} The reject reason's name (PROTOCOL.md 5.5).
 */
export function rejectReasonName(reason) {
  return ['unspecified', 'version mismatch', 'schema mismatch', 'room full', 'unknown room', 'bad resume token', 'server shutting down', 'invalid hello', 'redirect', 'token required', 'token invalid', 'token expired', 'token already used', 'token for another room', 'tokens exhausted'][reason] ?? `reason ${reason}`;
}
