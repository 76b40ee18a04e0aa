// Test doubles: a fake browser WebSocket, a Map-backed storage and a virtual clock.
import { FrameDecoder, encodeFrame } from '../frameDecoder.js';

/** A WebSocket the test drives: it records what the client sends and delivers what the test says. */
export class FakeSocket {
  /** @param {string} url @param {string} protocol */
  constructor(url = 'ws://test/', protocol = 'tickwire.v1') {
    this.url = url;
    this.protocol = protocol;
    this.binaryType = 'blob';
    this.readyState = 0;
    /** @type {Uint8Array[]} */
    this.sent = [];
    /** @type {{code?: number, reason?: string} | undefined} */
    this.closedWith = undefined;
    /** @type {any} */ this.onopen = null;
    /** @type {any} */ this.onmessage = null;
    /** @type {any} */ this.onclose = null;
    /** @type {any} */ this.onerror = null;
  }

  /** @param {Uint8Array} data */
  send(data) {
    if (this.readyState !== 1) throw new Error('send before open');
    this.sent.push(Uint8Array.from(data));
  }

  /** @param {number} [code] @param {string} [reason] */
  close(code, reason) {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }

  open() {
    this.readyState = 1;
    this.onopen?.({});
  }

  /** @param {Uint8Array} frame */
  deliver(frame) {
    const buffer = frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.byteLength);
    this.onmessage?.({ data: buffer });
  }

  /** @param {import('../message.js').Message} message */
  deliverMessage(message) {
    this.deliver(encodeFrame(message));
  }

  /** @param {number} code @param {string} [reason] */
  drop(code = 1006, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  /** @returns {import('../message.js').Message[]} What the client sent, decoded. */
  get messages() {
    const decoder = new FrameDecoder();
    return this.sent.map((frame) => decoder.decode(frame));
  }
}

/** A Map-backed `sessionStorage`. */
export class MemoryStorage {
  constructor() {
    /** @type {Map<string, string>} */
    this.items = new Map();
  }
  /** @param {string} key */
  getItem(key) { return this.items.get(key) ?? null; }
  /** @param {string} key @param {string} value */
  setItem(key, value) { this.items.set(key, value); }
  /** @param {string} key */
  removeItem(key) { this.items.delete(key); }
}

/** A clock the test advances. */
export class VirtualClock {
  constructor(start = 100) { this.time = start; }
  /** @returns {() => number} */
  get read() { return () => this.time; }
  /** @param {number} seconds */
  advance(seconds) { this.time += seconds; }
}
