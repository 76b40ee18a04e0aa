// The matchmaker's HTTP client (Protocol/MATCHMAKER.md): asks for a seat in a room of a mode, or
// for the open rooms, with `fetch` (browsers, Node 18+); mirrors the Swift client of issue #32.
import { MatchmakerError } from './errors.js';
import { MatchmadeSession } from './matchmadeSession.js';
import { ConnectTokenSize } from './message.js';

/** The sizes the contract fixes (MATCHMAKER.md sections 1 and 2). */
export const MatchmakerLimits = Object.freeze({
  /** A request body's largest size in bytes (`413 bodyTooLarge` past it). */
  maximumBodyBytes: 4096,
  /** A netcode.io connect token, `token` (2048 bytes). */
  connectTokenBytes: 2048,
  /** A WebSocket hello's connect token, `helloToken` (PROTOCOL.md 5.3.1: 1056 bytes). */
  helloTokenBytes: ConnectTokenSize.whole,
});

/** The codes a status means when its body is not the contract's JSON (an HTTP layer's own 411 or 413, a proxy's 502 …). */
const codeOfStatus = /** @type {Record<number, string>} */ ({
  400: 'badRequest', 401: 'unauthorized', 403: 'forbidden', 404: 'notFound', 405: 'methodNotAllowed',
  411: 'lengthRequired', 413: 'bodyTooLarge', 429: 'tooManyRequests', 503: 'unavailable',
});

/**
 * A reserved seat (MATCHMAKER.md section 2): where to connect and the token that admits the player there once.
 * @typedef {{
 *   room: string, mode: string, isNewRoom: boolean,
 *   urls: {ws?: string, wss?: string, udp?: string},
 *   token: Uint8Array,
 *   helloToken: import('./message.js').HelloConnectToken,
 *   helloTokenBytes: Uint8Array,
 *   expiresIn: number,
 *   userId: bigint,
 *   displayName: string,
 * }} Seat
 *   `token`: the 2048-byte netcode.io connect token (for `udp://`); `helloToken`: the parts a WebSocket
 *   hello carries (`configuration.connectToken`), from `helloTokenBytes`, the contract's 1056 bytes;
 *   `expiresIn`: seconds the seat waits for the first hello; `userId`: the token's 64-bit client id.
 */

/**
 * One open room (MATCHMAKER.md section 3).
 * @typedef {{room: string, mode: string, clients: number, capacity: number, metadata: Record<string, string>}} RoomListing
 *   `clients` counts players and seats reserved for players not yet arrived; `metadata` is the game's own.
 */

/**
 * The options of a seat request: `name` (the name a guest asks to be shown under), `private`
 * (`create` only: leave the room out of the listings); other members reach the game's `authenticate` hook.
 * @typedef {{name?: string, private?: boolean, [option: string]: unknown}} SeatOptions
 */

/**
 * @param {string} text
 * @param {number} bytes
 * @returns {Uint8Array | undefined} The bytes of exactly `bytes` bytes of hexadecimal digits.
 */
function bytesFromHex(text, bytes) {
  if (typeof text !== 'string' || text.length !== 2 * bytes || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  const result = new Uint8Array(bytes);
  for (let index = 0; index < bytes; index += 1) result[index] = parseInt(text.slice(2 * index, 2 * index + 2), 16);
  return result;
}

/**
 * @param {unknown} error What `fetch` threw.
 * @returns {string} Its message, with its cause's (Node's `fetch failed` hides the socket's error there).
 */
function describeFailure(error) {
  if (!(error instanceof Error)) return String(error);
  const cause = /** @type {{cause?: unknown}} */ (error).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

/**
 * Splits a hello's 1056-byte connect token into its parts (PROTOCOL.md 5.3.1): the expire timestamp
 * (u64, big-endian as every Tickwire integer), the 24-byte nonce, the 1024-byte encrypted private part.
 * @param {Uint8Array} bytes
 * @returns {import('./message.js').HelloConnectToken}
 * @throws {RangeError} When `bytes` is not 1056 bytes long.
 */
export function helloConnectToken(bytes) {
  if (bytes.length !== ConnectTokenSize.whole) throw new RangeError(`a hello's connect token is ${ConnectTokenSize.whole} bytes, not ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    expireTimestamp: view.getBigUint64(0, false),
    nonce: bytes.slice(8, 8 + ConnectTokenSize.nonce),
    encryptedPrivateData: bytes.slice(8 + ConnectTokenSize.nonce),
  };
}

/**
 * Reads a seat from a `200` answer's JSON, checking every member the contract names.
 * @param {unknown} body
 * @returns {Seat}
 * @throws {MatchmakerError} `malformedAnswer`, naming the member at fault.
 */
export function seatFromJSON(body) {
  const wrong = (/** @type {string} */ what) => new MatchmakerError(200, 'malformedAnswer', `the seat's ${what}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw wrong('body is not a JSON object');
  const answer = /** @type {Record<string, unknown>} */ (body);
  for (const key of ['room', 'mode', 'displayName', 'userId', 'token', 'helloToken']) {
    if (typeof answer[key] !== 'string') throw wrong(`${key} is not a string`);
  }
  if (typeof answer.isNewRoom !== 'boolean') throw wrong('isNewRoom is not a boolean');
  if (typeof answer.expiresIn !== 'number' || !(answer.expiresIn >= 0)) throw wrong('expiresIn is not a number of seconds');
  const userId = /** @type {string} */ (answer.userId);
  if (!/^[0-9]{1,20}$/.test(userId) || BigInt(userId) >= 2n ** 64n) throw wrong(`userId ${JSON.stringify(userId)} is not a 64-bit decimal number`);
  const token = bytesFromHex(/** @type {string} */ (answer.token), MatchmakerLimits.connectTokenBytes);
  if (!token) throw wrong(`token is not ${2 * MatchmakerLimits.connectTokenBytes} hexadecimal digits`);
  const helloTokenBytes = bytesFromHex(/** @type {string} */ (answer.helloToken), MatchmakerLimits.helloTokenBytes);
  if (!helloTokenBytes) throw wrong(`helloToken is not ${2 * MatchmakerLimits.helloTokenBytes} hexadecimal digits`);
  const urls = answer.urls;
  if (typeof urls !== 'object' || urls === null || Array.isArray(urls)) throw wrong('urls is not an object');
  /** @type {Seat['urls']} */
  const seatURLs = {};
  for (const [transport, url] of Object.entries(urls)) {
    if (typeof url !== 'string') throw wrong(`urls.${transport} is not a string`);
    if (transport === 'ws' || transport === 'wss' || transport === 'udp') seatURLs[transport] = url;
  }
  if (seatURLs.ws === undefined && seatURLs.wss === undefined && seatURLs.udp === undefined) throw wrong('urls name no transport (ws, wss or udp)');
  return {
    room: /** @type {string} */ (answer.room), mode: /** @type {string} */ (answer.mode), isNewRoom: answer.isNewRoom,
    urls: seatURLs, token, helloToken: helloConnectToken(helloTokenBytes), helloTokenBytes,
    expiresIn: answer.expiresIn, userId: BigInt(userId), displayName: /** @type {string} */ (answer.displayName),
  };
}

/**
 * Reads the listings from a `GET /rooms` answer's JSON.
 * @param {unknown} body
 * @returns {RoomListing[]}
 * @throws {MatchmakerError} `malformedAnswer`.
 */
export function roomListingsFromJSON(body) {
  const wrong = (/** @type {string} */ what) => new MatchmakerError(200, 'malformedAnswer', `the room listing's ${what}`);
  const rooms = typeof body === 'object' && body !== null ? /** @type {Record<string, unknown>} */ (body).rooms : undefined;
  if (!Array.isArray(rooms)) throw wrong('body has no rooms array');
  return rooms.map((entry, index) => {
    if (typeof entry !== 'object' || entry === null) throw wrong(`entry ${index} is not an object`);
    const { room, mode, clients, capacity, metadata = {} } = /** @type {Record<string, unknown>} */ (entry);
    if (typeof room !== 'string' || typeof mode !== 'string') throw wrong(`entry ${index} has no room or mode`);
    if (!Number.isInteger(clients) || !Number.isInteger(capacity)) throw wrong(`entry ${index} (${room}) has no whole clients and capacity`);
    if (typeof metadata !== 'object' || metadata === null || Object.values(metadata).some((value) => typeof value !== 'string')) {
      throw wrong(`entry ${index} (${room}) has metadata that is not strings`);
    }
    return { room, mode, clients: /** @type {number} */ (clients), capacity: /** @type {number} */ (capacity), metadata: /** @type {Record<string, string>} */ (metadata) };
  });
}

/**
 * Asks a matchmaker for seats and room listings (Protocol/MATCHMAKER.md). Every request is one
 * `fetch`, bounded by `timeout`; a refusal throws a `MatchmakerError` with the contract's code.
 */
export class Matchmaker {
  /**
   * @param {string | URL} url The matchmaker's base URL (`https://play.example/`; `arena serve` answers on
   *   its own port, so a page passes `location.origin`). A relative URL is resolved against the page's.
   * @param {{
   *   bearerToken?: string | (() => string | undefined | Promise<string | undefined>),
   *   fetch?: typeof globalThis.fetch,
   *   timeout?: number,
   * }} [options] `bearerToken`: the JWT sent as `Authorization: Bearer …`, or a function asked before each
   *   request (to refresh it); none: the player is a guest. `fetch`: defaults to `globalThis.fetch`.
   *   `timeout`: seconds a request may take, default 10.
   */
  constructor(url, options = {}) {
    const base = new URL(url, globalThis.location?.href);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    /** @type {URL} */
    this.url = base;
    this.bearerToken = options.bearerToken;
    /** @type {typeof globalThis.fetch} */
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.timeout = options.timeout ?? 10;
  }

  /**
   * A seat in the fullest open room of `mode` with one free, or in a new room (`POST /matchmake/joinOrCreate/{mode}`).
   * @param {string} mode
   * @param {SeatOptions} [options]
   * @returns {Promise<Seat>}
   * @throws {MatchmakerError}
   */
  joinOrCreate(mode, options = {}) {
    return this.seat('joinOrCreate', mode, options);
  }

  /**
   * A seat in the fullest open room of `mode` with one free; none is made (`404 noOpenRoom`).
   * @param {string} mode
   * @param {SeatOptions} [options]
   * @returns {Promise<Seat>}
   * @throws {MatchmakerError}
   */
  join(mode, options = {}) {
    return this.seat('join', mode, options);
  }

  /**
   * The first seat of a new room of `mode`; `private: true` leaves it out of the listings.
   * @param {string} mode
   * @param {SeatOptions} [options]
   * @returns {Promise<Seat>}
   * @throws {MatchmakerError}
   */
  create(mode, options = {}) {
    return this.seat('create', mode, options);
  }

  /**
   * A seat in the room named `room`, a private one too (`404 unknownRoom`, `409 roomFull`, `409 roomLocked`).
   * @param {string} room
   * @param {SeatOptions} [options]
   * @returns {Promise<Seat>}
   * @throws {MatchmakerError}
   */
  joinById(room, options = {}) {
    return this.seat('joinById', room, options);
  }

  /**
   * The public open rooms, fullest first (`GET /rooms`, `GET /rooms?mode=`).
   * @param {string} [mode] Only this mode's; all when absent.
   * @returns {Promise<RoomListing[]>}
   * @throws {MatchmakerError}
   */
  async rooms(mode) {
    const url = new URL('rooms', this.url);
    if (mode !== undefined) url.searchParams.set('mode', mode);
    return roomListingsFromJSON(await this.request('GET', url, undefined));
  }

  /**
   * Asks for a seat and keeps the player in it: a `MatchmadeSession` that connects with the seat's
   * hello token and, after a loss the room cannot resume, asks this matchmaker the same again.
   * @param {import('./clientSession.js').GameAdapter} game
   * @param {string} mode
   * @param {SeatOptions} [options]
   * @param {import('./matchmadeSession.js').MatchmadeSessionOptions} [sessionOptions]
   * @returns {MatchmadeSession}
   */
  joinOrCreateSession(game, mode, options = {}, sessionOptions = {}) {
    return new MatchmadeSession(game, () => this.joinOrCreate(mode, options), sessionOptions);
  }

  /**
   * The same as `joinOrCreateSession`, for one room by its name (`joinById`).
   * @param {import('./clientSession.js').GameAdapter} game
   * @param {string} room
   * @param {SeatOptions} [options]
   * @param {import('./matchmadeSession.js').MatchmadeSessionOptions} [sessionOptions]
   * @returns {MatchmadeSession}
   */
  joinByIdSession(game, room, options = {}, sessionOptions = {}) {
    return new MatchmadeSession(game, () => this.joinById(room, options), sessionOptions);
  }

  /**
   * @param {string} action `joinOrCreate`, `join`, `create` or `joinById`.
   * @param {string} name The mode, or the room for `joinById`.
   * @param {SeatOptions} options
   * @returns {Promise<Seat>}
   */
  async seat(action, name, options) {
    const body = JSON.stringify(options);
    const size = new TextEncoder().encode(body).length;
    if (size > MatchmakerLimits.maximumBodyBytes) {
      throw new MatchmakerError(413, 'bodyTooLarge', `the options are ${size} bytes of JSON, over the contract's ${MatchmakerLimits.maximumBodyBytes} (MatchmakerLimits.maximumBodyBytes)`);
    }
    return seatFromJSON(await this.request('POST', new URL(`matchmake/${action}/${encodeURIComponent(name)}`, this.url), body));
  }

  /**
   * One request: the JSON of a `200`, or the refusal thrown.
   * @param {string} method
   * @param {URL} url
   * @param {string | undefined} body
   * @returns {Promise<unknown>}
   */
  async request(method, url, body) {
    /** @type {Record<string, string>} */
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const bearer = typeof this.bearerToken === 'function' ? await this.bearerToken() : this.bearerToken;
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    let response;
    let text;
    // AbortController and a timer rather than AbortSignal.timeout, which older browsers lack.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; controller.abort(); }, this.timeout * 1000);
    try {
      response = await this.fetch(url, { method, headers, body, signal: controller.signal });
      text = await response.text();
    } catch (error) {
      const why = timedOut ? `no answer within ${this.timeout} s (the Matchmaker's timeout option)` : describeFailure(error);
      throw new MatchmakerError(0, 'unreachable', `${method} ${url.href}: ${why}`);
    } finally {
      clearTimeout(timer);
    }
    /** @type {unknown} */
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (response.status === 200) {
      if (json === undefined) throw new MatchmakerError(200, 'malformedAnswer', `${method} ${url.pathname}: the answer is not JSON`);
      return json;
    }
    const refusal = typeof json === 'object' && json !== null ? /** @type {Record<string, unknown>} */ (json) : {};
    const code = typeof refusal.error === 'string' ? refusal.error : (codeOfStatus[response.status] ?? `http${response.status}`);
    const reason = typeof refusal.reason === 'string' ? refusal.reason : (text.trim() || `${response.status} ${response.statusText}`);
    const retryAfter = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
    throw new MatchmakerError(response.status, code, reason, Number.isFinite(retryAfter) ? retryAfter : undefined);
  }
}

