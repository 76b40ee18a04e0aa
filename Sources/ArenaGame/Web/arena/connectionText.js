// The connection in words, as the terminal client shows it (ArenaClient.statusText), and the
// explanations the page shows when a server refuses it or sends what it cannot decode.
import { RejectReason, protocolVersion, rejectReasonName } from '@tickwire/client';

/** @typedef {import('@tickwire/client').ConnectionState} ConnectionState */

/**
 * @param {ConnectionState} state
 * @param {number} now The session's clock, seconds.
 * @param {boolean} hasGivenUp
 * @returns {string} The status line: `connected`, `reconnecting in 2.0 s (attempt 3)`, …
 */
export function statusText(state, now, hasGivenUp) {
  switch (state.kind) {
    case 'connecting': return state.attempt > 1 ? `connecting (attempt ${state.attempt})…` : 'connecting…';
    case 'connected': return state.resumed ? 'connected (resumed)' : 'connected';
    case 'waitingToReconnect': return `reconnecting in ${Math.max(state.at - now, 0).toFixed(1)} s (attempt ${state.attempt})`;
    case 'refused': return state.text ? `refused: ${rejectReasonName(state.reason)}: ${state.text}` : `refused: ${rejectReasonName(state.reason)}`;
    case 'kicked': return state.text ? `kicked: ${state.text}` : 'kicked';
    case 'left': return hasGivenUp ? 'gave up reconnecting' : 'left';
    default: return '';
  }
}

/**
 * What to tell a person whose connection was refused for good, in a sentence or two.
 * @param {number} reason A reject reason (PROTOCOL.md 5.5).
 * @param {string} text The server's text.
 * @param {string} fingerprint This page's schema fingerprint, in hex.
 * @returns {string}
 */
export function refusalExplanation(reason, text, fingerprint) {
  const said = text ? ` The server said: “${text}”.` : '';
  switch (reason) {
    case RejectReason.versionMismatch:
      return `This server speaks another version of the Tickwire protocol than this page (version ${protocolVersion}).${said} Load the page from the server you play on, or update one of them.`;
    case RejectReason.schemaMismatch:
      return `This server runs another game, or another version of the arena, than this page (schema ${fingerprint}).${said} Load the page from the server you play on.`;
    case RejectReason.unknownRoom:
      return `There is no such room on this server.${said} Try the default room (no ?room= in the address).`;
    default:
      return `The server refused this player: ${rejectReasonName(reason)}.${said}`;
  }
}
