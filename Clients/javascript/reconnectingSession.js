// A client session that reconnects with backoff and jitter and resumes its player with the
// resume token, kept in sessionStorage; mirrors ReconnectingSession.swift: it follows a fleet's
// redirects (at most maximumRedirects in a row) and moved disconnects (at once, no backoff).
import { ClientSession, subprotocol } from './clientSession.js';
import { ReconnectPolicy } from './reconnectPolicy.js';
import { DisconnectReason, RejectReason } from './message.js';

/** @typedef {import('./clientSession.js').SocketLike} SocketLike */
/** @typedef {import('./clientSession.js').GameAdapter} GameAdapter */

/**
 * The connection's state, for the page to show.
 * @typedef {{kind: 'connecting', attempt: number} | {kind: 'connected', resumed: boolean}
 *   | {kind: 'waitingToReconnect', attempt: number, at: number} | {kind: 'refused', reason: number, text: string}
 *   | {kind: 'kicked', text: string} | {kind: 'left'}} ConnectionState
 */

/**
 * The part of the Web Storage API used for the resume token; tests pass a Map-backed fake.
 * @typedef {{getItem(key: string): string | null, setItem(key: string, value: string): void, removeItem(key: string): void}} StorageLike
 */

/** @returns {StorageLike | undefined} `sessionStorage` where the page may use it. */
function defaultStorage() {
  try {
    return globalThis.sessionStorage ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * @param {Uint8Array} bytes
 * @returns {string}
 */
function toHex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * @param {string} text
 * @returns {Uint8Array | undefined}
 */
function fromHex(text) {
  if (!/^([0-9a-f]{2}){1,64}$/.test(text)) return undefined;
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/**
 * The options of a `ReconnectingSession`.
 * @typedef {{
 *   url: string,
 *   clock?: () => number,
 *   configuration?: Partial<typeof import('./clientConfiguration.js').defaultClientConfiguration>,
 *   policy?: ReconnectPolicy,
 *   openSocket?: (url: string, protocol: string) => SocketLike,
 *   storage?: StorageLike | null,
 *   random?: () => number,
 *   handshakeTimeout?: number,
 *   maximumRedirects?: number,
 * }} ReconnectingSessionOptions
 *   `openSocket` defaults to `new WebSocket(url, 'tickwire.v1')`; `storage` to `sessionStorage`
 *   (null: keep the token in memory only); `handshakeTimeout` to 10 s; `maximumRedirects` (redirects
 *   followed in a row before giving up, PROTOCOL.md 5.5) to 3. `url` is the entry URL: a redirect or
 *   a moved disconnect (5.10) sends the next attempt elsewhere, a lost connection comes back to it.
 */

/** Keeps a `ClientSession` connected: reconnects after a drop, resumes the player, gives up only when refused or told to leave. */
export class ReconnectingSession {
  /**
   * @param {GameAdapter} game
   * @param {ReconnectingSessionOptions} options
   */
  constructor(game, options) {
    this.session = new ClientSession(game, { clock: options.clock, configuration: options.configuration });
    this.url = options.url;
    this.policy = options.policy ?? new ReconnectPolicy();
    this.openSocket = options.openSocket ?? ((url, protocol) => /** @type {SocketLike} */ (/** @type {unknown} */ (new WebSocket(url, protocol))));
    /** @type {StorageLike | undefined} */
    this.storage = options.storage === null ? undefined : (options.storage ?? defaultStorage());
    this.random = options.random ?? Math.random;
    this.handshakeTimeout = options.handshakeTimeout ?? 10;
    /** @type {Set<number>} Refusals worth retrying. */
    this.retryableRefusals = new Set([RejectReason.roomFull, RejectReason.serverShuttingDown, RejectReason.tokensExhausted]);
    /** @type {(state: ConnectionState) => void} Called on every state change. */
    this.onStateChange = () => {};
    /** @type {ConnectionState} */
    this.state = { kind: 'connecting', attempt: 1 };
    this.reconnects = 0;
    this.failedAttempts = 0;
    /** @type {string | undefined} */
    this.lastFailure = undefined;
    this.hasGivenUp = false;
    this.setbacks = 0;
    this.attempt = 0;
    this.attemptStartedAt = 0;
    this.hasStarted = false;
    this.hasConnected = false;
    /** @type {number} The session's welcomes already reported as connected. */
    this.welcomesSeen = 0;
    this.maximumRedirects = options.maximumRedirects ?? 3;
    /** @type {string | undefined} Where the next attempt goes instead of the entry URL. */
    this.target = undefined;
    /** @type {string[]} The URLs of the redirects followed in a row. */
    this.redirectChain = [];
    this.redirectsFollowed = 0;
    this.movesFollowed = 0;
    this.session.resumeToken = this.loadToken();
  }

  /** @returns {string} The storage key of this room's resume token. */
  get storageKey() {
    return `tickwire.resumeToken.${this.session.configuration.room}`;
  }

  /** @returns {Uint8Array | undefined} */
  loadToken() {
    try {
      const stored = this.storage?.getItem(this.storageKey);
      return stored ? fromHex(stored) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Saves (or removes) the session's current resume token. */
  saveToken() {
    try {
      const token = this.session.resumeToken;
      if (token) this.storage?.setItem(this.storageKey, toHex(token)); else this.storage?.removeItem(this.storageKey);
    } catch {
      // Storage may be full or forbidden; the token then lives in memory only.
    }
  }

  /** @returns {boolean} Whether the state is final (refused, kicked or left). */
  get isFinal() {
    return this.state.kind === 'refused' || this.state.kind === 'kicked' || this.state.kind === 'left';
  }

  /** @param {ConnectionState} state */
  setState(state) {
    if (JSON.stringify(state) === JSON.stringify(this.state)) return;
    this.state = state;
    this.onStateChange(state);
  }

  /** Opens the first connection (also done by the first `tick`). */
  start() {
    if (this.hasStarted || this.isFinal) return;
    this.hasStarted = true;
    this.openConnection();
  }

  /**
   * One client tick: reconnects when due, then ticks the session.
   * @param {unknown} input
   */
  tick(input) {
    if (this.isFinal) return;
    if (!this.hasStarted) {
      this.start();
    } else if (this.state.kind === 'waitingToReconnect' && this.session.clock() >= this.state.at) {
      this.openConnection();
    }
    this.session.tick(input);
    this.observeSession();
  }

  /** @returns {import('./interpolationBuffer.js').WorldView | undefined} The session's view. */
  render() {
    const view = this.session.render();
    this.observeSession();
    return view;
  }

  /** Leaves for good: a clean disconnect, and the stored token forgotten. */
  leave() {
    this.session.leave();
    this.saveToken();
    if (!this.isFinal) this.setState({ kind: 'left' });
  }

  /**
   * Joins afresh elsewhere: a new entry URL, room and connect token (a matchmaker's seat, PROTOCOL.md
   * 5.3.1), in place of the old ones; ends any state, final ones too, and opens a connection at once.
   * @param {string} url The new entry URL.
   * @param {{room: string, connectToken?: import('./message.js').HelloConnectToken, resumes?: boolean}} seat
   *   `resumes` (default true): whether the hello carries the resume token stored for that room (a reload
   *   within the host's grace period gets the same player back); false joins with the connect token.
   */
  rejoin(url, { room, connectToken, resumes = true }) {
    this.session.closeSocket(1000, '');
    this.url = url;
    this.session.configuration.room = room;
    this.session.connectToken = connectToken;
    this.session.resumeToken = resumes ? this.loadToken() : undefined;
    this.target = undefined;
    this.redirectChain = [];
    this.attempt = 0;
    this.setbacks = 0;
    this.hasGivenUp = false;
    this.welcomesSeen = this.session.welcomes;
    this.hasStarted = true;
    this.openConnection();
  }

  openConnection() {
    this.attempt += 1;
    this.attemptStartedAt = this.session.clock();
    this.setState({ kind: 'connecting', attempt: this.attempt });
    let socket;
    try {
      socket = this.openSocket(this.target ?? this.url, subprotocol);
    } catch (error) {
      this.failAttempt(`could not open a connection: ${error instanceof Error ? error.message : error}`);
      return;
    }
    this.session.connect(socket);
  }

  /** Follows the session's status into the connection state. */
  observeSession() {
    if (this.state.kind === 'connecting' && this.session.welcomes > this.welcomesSeen) {
      // Welcomed, even if the connection ended again (a kick, a move) before this tick: connected
      // first, so that what ended it is judged as the end of a connection, as in Swift.
      this.welcomesSeen = this.session.welcomes;
      if (this.hasConnected) this.reconnects += 1;
      this.hasConnected = true;
      this.setbacks = 0;
      this.attempt = 0;
      this.target = undefined;
      this.redirectChain = [];
      this.saveToken();
      this.setState({ kind: 'connected', resumed: this.session.wasResumed });
    }
    const status = this.session.status;
    if (this.state.kind === 'connecting') {
      switch (status.kind) {
        case 'connected':
          break; // reported above, with the welcome
        case 'rejected':
          if (status.reason === RejectReason.redirect && status.text) {
            this.followRedirect(status.text);
          } else if (this.retryableRefusals.has(status.reason)) {
            this.failAttempt(status.text ? `refused: ${status.text}` : `refused: reason ${status.reason}`);
          } else {
            this.session.closeSocket(1000, '');
            this.setState({ kind: 'refused', reason: status.reason, text: status.text });
          }
          break;
        case 'disconnected':
          this.failAttempt(status.reason);
          break;
        default:
          if (this.session.clock() - this.attemptStartedAt > this.handshakeTimeout) {
            this.session.closeSocket(1000, '');
            this.failAttempt(`no welcome within ${this.handshakeTimeout} s`);
          }
      }
    } else if (this.state.kind === 'connected') {
      const moved = this.session.lastDisconnect?.reason === DisconnectReason.moved;
      const kicked = this.session.lastDisconnect?.reason === DisconnectReason.kicked;
      if (status.kind === 'disconnected' && kicked) {
        // A final kick (5.10): the player is gone and the host wants it gone.
        this.saveToken();
        this.lastFailure = `kicked${this.session.lastDisconnect?.text ? `: ${this.session.lastDisconnect.text}` : ''}`;
        this.setState({ kind: 'kicked', text: this.session.lastDisconnect?.text ?? '' });
      } else if (status.kind === 'disconnected' && moved) {
        // The server drains or lost the room: at once, to the URL given or the entry URL.
        this.movesFollowed += 1;
        this.target = this.session.lastDisconnect?.text || undefined;
        this.redirectChain = [];
        this.attempt = 0;
        this.lastFailure = `moved${this.target ? ` to ${this.target}` : ''}`;
        this.openConnection();
      } else if (status.kind === 'disconnected') {
        // A kick that allows a rejoin revoked the token: storage forgets it too.
        if (this.session.lastDisconnect?.reason === DisconnectReason.kickedMayRejoin) this.saveToken();
        this.scheduleNextAttempt(status.reason);
      }
      else if (status.kind === 'rejected') this.scheduleNextAttempt(status.text);
      else if (status.kind !== 'connected') this.scheduleNextAttempt('the connection was reset');
    }
  }

  /**
   * Sends the hello again at once to where a redirect points, or gives up past `maximumRedirects`.
   * @param {string} url
   */
  followRedirect(url) {
    this.redirectChain.push(url);
    if (this.redirectChain.length > this.maximumRedirects) {
      const text = `gave up after ${this.maximumRedirects} redirects in a row: ${this.redirectChain.join(' -> ')}`;
      this.session.closeSocket(1000, '');
      this.setState({ kind: 'refused', reason: RejectReason.redirect, text });
      return;
    }
    this.redirectsFollowed += 1;
    this.target = url;
    this.openConnection();
  }

  /** @param {string} reason */
  failAttempt(reason) {
    this.failedAttempts += 1;
    this.target = undefined;
    this.redirectChain = [];
    this.scheduleNextAttempt(reason);
  }

  /** @param {string} reason */
  scheduleNextAttempt(reason) {
    this.lastFailure = reason;
    this.target = undefined;
    this.setbacks += 1;
    const exhausted = this.policy.maximumAttempts !== undefined && this.attempt >= this.policy.maximumAttempts;
    if (!this.policy.isEnabled || exhausted) {
      this.hasGivenUp = true;
      this.session.closeSocket(1000, '');
      this.setState({ kind: 'left' });
      return;
    }
    const delay = this.policy.delay(this.setbacks, this.random());
    this.setState({ kind: 'waitingToReconnect', attempt: this.attempt + 1, at: this.session.clock() + delay });
  }
}
