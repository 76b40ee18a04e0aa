// A session that a matchmaker seats (Protocol/MATCHMAKER.md): asks for a seat, joins its room with
// the seat's hello token (PROTOCOL.md 5.3.1) through a ReconnectingSession, which resumes the player
// after a drop; once the room can no longer give the player back (the resume grace has passed, or
// the server asks for a token the session has spent) it asks the matchmaker again.
import { MatchmakerError } from './errors.js';
import { RejectReason } from './message.js';
import { ReconnectPolicy } from './reconnectPolicy.js';
import { ReconnectingSession } from './reconnectingSession.js';

/** @typedef {import('./matchmaker.js').Seat} Seat */
/** @typedef {import('./reconnectingSession.js').ConnectionState} ConnectionState */

/**
 * The session's state: a `ReconnectingSession`'s, or the matchmaker's part: asking for a seat, waiting
 * to ask again (after a retryable refusal: no answer, `429`, `5xx`), or refused for good.
 * @typedef {ConnectionState | {kind: 'matchmaking', attempt: number} | {kind: 'waitingToMatchmake', attempt: number, at: number}
 *   | {kind: 'matchmakerRefused', status: number, code: string, reason: string}} MatchmadeState
 */

/**
 * The options of a `MatchmadeSession`: a `ReconnectingSession`'s but its `url` (the seat gives it), and
 * `resumeGrace` (seconds without a connection after which the room no longer holds the player, so the
 * session asks for a new seat; default 10, Tickwire's host's grace) and `pickURL` (the WebSocket URL to use
 * of a seat's; default `wss`, else `ws`).
 * @typedef {Omit<import('./reconnectingSession.js').ReconnectingSessionOptions, 'url'> & {
 *   resumeGrace?: number,
 *   pickURL?: (seat: Seat) => string | undefined,
 * }} MatchmadeSessionOptions
 */

/** Refusals after which a new seat may succeed: the token is spent, expired or used, or the room is gone. */
const reseatingRefusals = new Set([RejectReason.tokenRequired, RejectReason.tokenExpired, RejectReason.tokenAlreadyUsed, RejectReason.unknownRoom]);

/**
 * Keeps a player in a room a matchmaker chose. Drive it like a `ReconnectingSession` (`tick`, `render`,
 * `leave`, `state`, `session`); `Matchmaker.joinOrCreateSession` makes one.
 */
export class MatchmadeSession {
  /**
   * @param {import('./clientSession.js').GameAdapter} game
   * @param {() => Promise<Seat>} ask Asks the matchmaker for a seat (`() => matchmaker.joinOrCreate('arena', {name})`);
   *   called for the first seat and each time the room is lost.
   * @param {MatchmadeSessionOptions} [options]
   */
  constructor(game, ask, options = {}) {
    this.ask = ask;
    /** The connection to the seat's room; it opens nothing before the first seat. */
    this.connection = new ReconnectingSession(game, { ...options, url: '' });
    this.policy = options.policy ?? new ReconnectPolicy();
    this.random = options.random ?? Math.random;
    this.resumeGrace = options.resumeGrace ?? 10;
    this.pickURL = options.pickURL ?? ((/** @type {Seat} */ seat) => seat.urls.wss ?? seat.urls.ws);
    /** @type {Seat | undefined} The seat the session plays in. */
    this.seat = undefined;
    /** @type {string} The WebSocket URL of `seat`. */
    this.seatURL = '';
    this.seatTakenAt = 0;
    /** Whether the room of `seat` has welcomed the player. */
    this.seatWelcomed = false;
    /** Seats asked for (answered or not). */
    this.matchmakings = 0;
    /** Seats asked for since the last welcome, each after a lost room or a refused token: the backoff's count. */
    this.reseats = 0;
    /** Retryable matchmaker failures in a row. */
    this.matchmakerFailures = 0;
    /** @type {MatchmakerError | undefined} */
    this.lastMatchmakerError = undefined;
    /** @type {string | undefined} Why the session last asked for a new seat. */
    this.lastReseat = undefined;
    /** @type {MatchmadeState | undefined} The matchmaker's part of the state; undefined while the connection is in charge. */
    this.ownState = { kind: 'matchmaking', attempt: 1 };
    /** @type {Promise<Seat> | undefined} */
    this.pending = undefined;
    /** @type {{seat: Seat} | {error: unknown} | undefined} An answer not yet taken (taken by the next tick). */
    this.answer = undefined;
    /** @type {number | undefined} When the connection was last lost (the session's clock). */
    this.lostAt = undefined;
    /** @type {(state: MatchmadeState) => void} Called on every state change. */
    this.onStateChange = () => {};
    this.connection.onStateChange = (state) => {
      if (!this.ownState) this.onStateChange(state);
    };
  }

  /** @returns {import('./clientSession.js').ClientSession} The session of the current connection. */
  get session() {
    return this.connection.session;
  }

  /** @returns {MatchmadeState} */
  get state() {
    return this.ownState ?? this.connection.state;
  }

  /** @returns {boolean} Whether the state is final (refused by the room or the matchmaker, kicked, left). */
  get isFinal() {
    return this.ownState ? this.ownState.kind === 'matchmakerRefused' : this.connection.isFinal;
  }

  /** @returns {boolean} Whether the connection gave up reconnecting (its policy's attempts ran out). */
  get hasGivenUp() {
    return this.connection.hasGivenUp;
  }

  /** @returns {number} Reconnects of the connection (a new seat's first welcome counts as one). */
  get reconnects() {
    return this.connection.reconnects;
  }

  /** @returns {string | undefined} What went wrong last: the matchmaker's refusal while asking, else the connection's. */
  get lastFailure() {
    if (this.ownState && this.lastMatchmakerError) return this.lastMatchmakerError.message;
    return this.connection.lastFailure ?? this.lastReseat;
  }

  /** @param {MatchmadeState} state */
  setOwnState(state) {
    this.ownState = state;
    this.onStateChange(state);
  }

  /** Asks for the first seat (also done by the first `tick`). */
  start() {
    if (this.matchmakings === 0 && this.ownState?.kind === 'matchmaking') this.askMatchmaker();
  }

  /**
   * One client tick: takes the matchmaker's answer, asks again when due, or ticks the connection.
   * @param {unknown} input
   */
  tick(input) {
    if (!this.ownState) this.watchConnection();
    if (this.isFinal) return;
    if (this.ownState) {
      this.start();
      this.takeAnswer();
      if (this.ownState?.kind === 'waitingToMatchmake' && this.session.clock() >= this.ownState.at) this.askMatchmaker();
      if (this.ownState) return;
    }
    this.connection.tick(input);
    this.watchConnection();
  }

  /** @returns {import('./interpolationBuffer.js').WorldView | undefined} The connection's view (none before a seat). */
  render() {
    return this.ownState && !this.seat ? undefined : this.connection.render();
  }

  /** Leaves for good: a clean disconnect, and a matchmaker answer still on its way ignored. */
  leave() {
    this.pending = undefined;
    this.answer = undefined;
    if (this.ownState && this.ownState.kind !== 'matchmakerRefused') this.ownState = undefined;
    this.connection.leave();
  }

  askMatchmaker() {
    this.matchmakings += 1;
    this.setOwnState({ kind: 'matchmaking', attempt: this.matchmakerFailures + 1 });
    let request;
    try {
      request = this.ask();
    } catch (error) {
      request = Promise.reject(error);
    }
    this.pending = request;
    request.then(
      (seat) => { if (this.pending === request) this.answer = { seat }; },
      (error) => { if (this.pending === request) this.answer = { error }; },
    );
  }

  takeAnswer() {
    const answer = this.answer;
    if (!answer) return;
    this.answer = undefined;
    this.pending = undefined;
    if ('seat' in answer) {
      const url = this.pickURL(answer.seat);
      if (!url) {
        this.lastMatchmakerError = new MatchmakerError(200, 'noWebSocketURL', `the seat in ${answer.seat.room} names no ws or wss URL (only ${Object.keys(answer.seat.urls).join(', ')})`);
        this.setOwnState({ kind: 'matchmakerRefused', status: 200, code: 'noWebSocketURL', reason: this.lastMatchmakerError.reason });
        return;
      }
      this.matchmakerFailures = 0;
      this.lastMatchmakerError = undefined;
      this.seat = answer.seat;
      this.seatURL = url;
      this.seatTakenAt = this.session.clock();
      this.seatWelcomed = false;
      this.lostAt = undefined;
      this.ownState = undefined;
      this.connection.rejoin(url, { room: answer.seat.room, connectToken: answer.seat.helloToken });
      return;
    }
    const error = answer.error instanceof MatchmakerError ? answer.error
      : new MatchmakerError(0, 'unreachable', answer.error instanceof Error ? answer.error.message : String(answer.error));
    this.lastMatchmakerError = error;
    this.matchmakerFailures += 1;
    const exhausted = this.policy.maximumAttempts !== undefined && this.matchmakerFailures >= this.policy.maximumAttempts;
    if (!error.isRetryable || !this.policy.isEnabled || exhausted) {
      this.setOwnState({ kind: 'matchmakerRefused', status: error.status, code: error.code, reason: error.reason });
      return;
    }
    const delay = error.retryAfter ?? this.policy.delay(this.matchmakerFailures, this.random());
    this.setOwnState({ kind: 'waitingToMatchmake', attempt: this.matchmakerFailures + 1, at: this.session.clock() + delay });
  }

  /** Follows the connection: a refusal a new seat may cure, or a loss past the resume grace, asks the matchmaker again. */
  watchConnection() {
    const state = this.connection.state;
    const now = this.session.clock();
    if (state.kind === 'connected') {
      this.lostAt = undefined;
      this.reseats = 0;
      this.seatWelcomed = true;
      return;
    }
    if (state.kind === 'refused' && reseatingRefusals.has(state.reason)) {
      const seat = this.seat;
      // A hello that resumed a player the room no longer holds, while the seat's token is unspent and valid: join with it.
      if (state.reason === RejectReason.tokenRequired && seat && this.session.connectToken && !this.session.helloCarriedConnectToken
        && now < this.seatTakenAt + seat.expiresIn) {
        this.connection.rejoin(this.seatURL, { room: seat.room, connectToken: this.session.connectToken, resumes: false });
        return;
      }
      this.reseat(`the room refused the player (reject ${state.reason}: ${state.text || 'no words'})`);
      return;
    }
    if (state.kind !== 'connecting' && state.kind !== 'waitingToReconnect') return;
    if (!this.seatWelcomed) {
      // The room never answered this seat: once the seat has expired, its token admits no one.
      const seat = this.seat;
      if (seat && now > this.seatTakenAt + seat.expiresIn) this.reseat(`the seat expired (${seat.expiresIn} s) before its room welcomed the player`);
      return;
    }
    this.lostAt ??= now;
    if (now - this.lostAt > this.resumeGrace) this.reseat(`no connection for ${this.resumeGrace} s, past the room's resume grace`);
  }

  /** @param {string} reason */
  reseat(reason) {
    this.lastReseat = reason;
    this.reseats += 1;
    this.lostAt = undefined;
    this.session.closeSocket(1000, '');
    // The first new seat at once; more in a row (none of them welcomed) back off.
    const delay = this.reseats > 1 ? this.policy.delay(this.reseats - 1, this.random()) : 0;
    if (delay > 0) this.setOwnState({ kind: 'waitingToMatchmake', attempt: 1, at: this.session.clock() + delay });
    else this.askMatchmaker();
  }
}
