// The connection in words, as the terminal client shows it (ArenaClient.statusText), and the
// explanations the page shows when a server refuses it or sends what it cannot decode.
import { RejectReason, protocolVersion, rejectReasonName } from '@tickwire/client';

/** @typedef {import('@tickwire/client').MatchmadeState} MatchmadeState A connection's state, or a matchmade session's (which adds the matchmaker's). */

/**
 * @param {MatchmadeState} state
 * @param {number} now The session's clock, seconds.
 * @param {boolean} hasGivenUp
 * @returns {string} The status line: `connected`, `reconnecting in 2.0 s (attempt 3)`, `finding a room…`, …
 */
export function statusText(state, now, hasGivenUp) {
  switch (state.kind) {
    case 'connecting': return state.attempt > 1 ? `connecting (attempt ${state.attempt})…` : 'connecting…';
    case 'connected': return state.resumed ? 'connected (resumed)' : 'connected';
    case 'waitingToReconnect': return `reconnecting in ${Math.max(state.at - now, 0).toFixed(1)} s (attempt ${state.attempt})`;
    case 'refused': return state.text ? `refused: ${rejectReasonName(state.reason)}: ${state.text}` : `refused: ${rejectReasonName(state.reason)}`;
    case 'kicked': return state.text ? `kicked: ${state.text}` : 'kicked';
    case 'left': return hasGivenUp ? 'gave up reconnecting' : 'left';
    case 'matchmaking': return state.attempt > 1 ? `finding a room (attempt ${state.attempt})…` : 'finding a room…';
    case 'waitingToMatchmake': return `finding a room in ${Math.max(state.at - now, 0).toFixed(1)} s (attempt ${state.attempt})`;
    case 'matchmakerRefused': return `matchmaker refused: ${state.code}: ${state.reason}`;
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

/**
 * What to tell a person whose matchmaker refused for good (Protocol/MATCHMAKER.md section 4).
 * @param {string} code The refusal's code (`forbidden`, `unknownRoom` …).
 * @param {string} reason The matchmaker's words.
 * @returns {string}
 */
export function matchmakerRefusalExplanation(code, reason) {
  const said = reason ? ` It said: “${reason}”.` : '';
  switch (code) {
    case 'unknownRoom': return `That room has closed.${said} Reload the page to pick another one, or quick play.`;
    case 'roomFull': case 'roomLocked': return `That room takes no more players.${said} Reload the page to pick another one, or quick play.`;
    case 'unauthorized': case 'forbidden': return `The matchmaker does not let this player in.${said}`;
    default: return `The matchmaker could not find a room (${code}).${said} Reload the page to try again.`;
  }
}
