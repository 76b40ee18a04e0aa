// The frame decoder over Protocol/vectors/frame-*.hex: every valid vector decodes to the values
// its comments state and re-encodes to the same body bytes (the whole frame where it was sent
// uncompressed); every error vector is refused with the error of its '# error:' line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameError } from '../errors.js';
import { FrameDecoder, encodeFrame } from '../frameDecoder.js';
import { FrameLimits } from '../frameLimits.js';
import { CompressionMode, decodeBody, encodeBody } from '../message.js';
import { hex, readVector, vectorNames } from './vectors.mjs';

const text = new TextEncoder();
const tiles = (/** @type {number} */ times) => Uint8Array.from({ length: 4 * times }, (_, index) => [0x01, 0x7f, 0x20, 0x00][index % 4]);

/** The messages each valid vector carries, from the vectors' comments (as Tools/suites/frame-vectors-python states them). */
const expected = {
  'frame-hello.hex': [{ type: 'hello', protocolVersion: 1, schemaFingerprint: 0x0123456789abcdefn, compressionModes: 3, room: 'arena', resumeToken: Uint8Array.of(0xde, 0xad, 0xbe, 0xef), payload: text.encode('ada') }],
  'frame-welcome.hex': [{ type: 'welcome', clientID: 7, tickRate: 60, currentTick: 1000, serverTime: 16666000n, compression: 2, acceptsRenderTimes: false, acceptsPongHold: false, deltaCoding: 'bitPacked', resumeToken: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) }],
  'frame-welcome-render-times.hex': [{ type: 'welcome', clientID: 7, tickRate: 20, currentTick: 1000, serverTime: 40000000n, compression: 1, acceptsRenderTimes: true, acceptsPongHold: false, deltaCoding: 'bitPacked', resumeToken: new Uint8Array(0) }],
  'frame-hello-render-times.hex': [{ type: 'hello', protocolVersion: 1, schemaFingerprint: 0x0123456789abcdefn, compressionModes: 0x43, room: 'arena', resumeToken: undefined, payload: new Uint8Array(0) }],
  'frame-reject.hex': [{ type: 'reject', reason: 2, text: 'schema differs' }],
  'frame-reject-redirect.hex': [{ type: 'reject', reason: 8, text: 'ws://10.0.0.2:7777/r' }],
  'frame-snapshot.hex': [{ type: 'snapshot', tick: 1000, baselineTick: 998, lastProcessedInput: 57, serverTime: 16683333n, delta: Uint8Array.of(0x03, 0x81, 0x40, 0x12, 0x34, 0x80) }],
  'frame-input.hex': [{ type: 'input', ackTick: 998, newestSequence: 58, inputs: [Uint8Array.of(5, 1), Uint8Array.of(5, 0), Uint8Array.of(1, 0)] }],
  'frame-input-render-times.hex': [{ type: 'input', ackTick: 998, newestSequence: 58, inputs: [Uint8Array.of(5, 1), Uint8Array.of(5, 0)], renderTimes: [{ tick: 997, fraction: 128 }, { tick: 996, fraction: 64 }] }],
  'frame-ping.hex': [{ type: 'ping', clientTime: 5000000n }],
  'frame-pong.hex': [{ type: 'pong', clientTime: 5000000n, serverTime: 16700000n }],
  'frame-pong-hold.hex': [{ type: 'pong', clientTime: 5000000n, serverTime: 16700000n, hold: 21250n }],
  'frame-hello-connect-token.hex': [{
    type: 'hello', protocolVersion: 1, schemaFingerprint: 0x0123456789abcdefn, compressionModes: 3, room: 'red', resumeToken: undefined,
    // The private part is the vector's own bytes (49…1072 of the frame): the Swift tests check that it is vectors/tokens/token-01's.
    connectToken: { expireTimestamp: 1800000060n, nonce: Uint8Array.from({ length: 24 }, (_, index) => 0x40 + index), encryptedPrivateData: readVector('frame-hello-connect-token.hex').frames[0].slice(49, 1073) },
    payload: text.encode('ada'),
  }],
  'frame-hello-version-2.hex': [{ type: 'hello', protocolVersion: 2, schemaFingerprint: 0x0123456789abcdefn, compressionModes: 3, room: 'arena', resumeToken: undefined, payload: new Uint8Array(0) }],
  'frame-hello-pong-hold.hex': [{ type: 'hello', protocolVersion: 1, schemaFingerprint: 0x0123456789abcdefn, compressionModes: 0x13, room: 'arena', resumeToken: undefined, payload: new Uint8Array(0) }],
  'frame-hello-text-fields.hex': [{ type: 'hello', protocolVersion: 1, schemaFingerprint: 0x0123456789abcdefn, compressionModes: 0x0b, room: 'arena', resumeToken: undefined, payload: new Uint8Array(0) }],
  'frame-welcome-pong-hold.hex': [{ type: 'welcome', clientID: 7, tickRate: 20, currentTick: 1000, serverTime: 40000000n, compression: 1, acceptsRenderTimes: false, acceptsPongHold: true, deltaCoding: 'bitPacked', resumeToken: new Uint8Array(0) }],
  'frame-disconnect.hex': [{ type: 'disconnect', reason: 1, text: 'bye' }],
  'frame-disconnect-moved.hex': [{ type: 'disconnect', reason: 8, text: 'ws://10.0.0.3:7777/r' }],
  'frame-disconnect-kicked-may-rejoin.hex': [{ type: 'disconnect', reason: 9, text: 'afk' }],
  'frame-stats.hex': [{ type: 'stats', tick: 3600, tickDurationP50: 850, tickDurationP99: 2100, tickDurationMax: 4800, cpuPerMille: 420, connectedClients: 32, bytesOutPerSecond: 1500000n }],
  'frame-application.hex': [{ type: 'application', messageType: 0x40, body: text.encode('gg') }],
  'frame-perframe-snapshot.hex': [{ type: 'snapshot', tick: 2000, baselineTick: undefined, lastProcessedInput: 0, serverTime: 33333333n, delta: tiles(16) }],
  'frame-streaming-sequence.hex': [
    { type: 'snapshot', tick: 1000, baselineTick: 998, lastProcessedInput: 57, serverTime: 16683333n, delta: tiles(8) },
    { type: 'snapshot', tick: 1001, baselineTick: 999, lastProcessedInput: 58, serverTime: 16700000n, delta: tiles(8) },
    { type: 'application', messageType: 0x40, body: text.encode('0123456789abcdefghij') },
    { type: 'application', messageType: 0x40, body: text.encode('0123456789abcdefghij0123456789abcdefghij') },
  ],
};

/**
 * @param {string} name
 * @returns {number}
 */
function modeOf(name) {
  const mode = readVector(name).keys.mode?.[0] ?? 'none';
  return /** @type {Record<string, number>} */ (CompressionMode)[mode];
}

for (const name of vectorNames('frame-').filter((name) => !name.startsWith('frame-error-'))) {
  test(`${name} decodes to its messages and re-encodes byte for byte`, () => {
    const vector = readVector(name);
    const messages = expected[/** @type {keyof typeof expected} */ (name)];
    assert.ok(messages, `the test lists no expected messages for ${name}`);
    assert.equal(vector.frames.length, messages.length, 'frame count');
    const decoder = new FrameDecoder(modeOf(name));
    vector.frames.forEach((frame, index) => {
      const { type, body } = decoder.decompress(frame);
      const message = decodeBody(type, body);
      assert.deepEqual(message, messages[index], `frame ${index + 1}`);
      assert.equal(hex(encodeBody(message)), hex(body), `frame ${index + 1}: the body re-encodes to the same bytes`);
      if ((frame[0] & 0x80) === 0) assert.equal(hex(encodeFrame(message)), hex(frame), `frame ${index + 1} re-encodes to the same frame`);
    });
  });
}

for (const name of vectorNames('frame-error-')) {
  test(`${name} is refused with its error`, () => {
    const vector = readVector(name);
    const error = vector.keys.error[0];
    // A receiver that lowered a limit (PROTOCOL.md 7.2): `# limit: NAME VALUE`.
    const limits = { ...FrameLimits.standard };
    for (const line of vector.keys.limit ?? []) {
      const [limit, value] = line.split(/\s+/);
      assert.ok(limit in limits, `${line} names no frame limit`);
      /** @type {Record<string, number>} */ (limits)[limit] = Number(value);
    }
    const decoder = new FrameDecoder(modeOf(name), limits);
    const frames = vector.frames;
    for (const frame of frames.slice(0, -1)) {
      // Only the frame that breaks a streaming context may be refused before the last.
      if (name === 'frame-error-context-broken.hex') assert.throws(() => decoder.decode(frame), FrameError);
      else decoder.decode(frame);
    }
    assert.throws(() => decoder.decode(frames[frames.length - 1]), (thrown) => {
      assert.ok(thrown instanceof FrameError, `a FrameError, not ${thrown}`);
      // Error lines with values must match exactly; bare names match the kind.
      assert.equal(error.includes('(') ? thrown.signature : thrown.kind, error, thrown.message);
      return true;
    });
  });
}

test('a broken streaming context refuses every later frame', () => {
  const decoder = new FrameDecoder(CompressionMode.streaming);
  assert.throws(() => decoder.decode(Uint8Array.of(0xc0, 0xff, 0xff)), (error) => error instanceof FrameError && error.kind === 'inflation');
  assert.throws(() => decoder.decode(Uint8Array.of(0x06, 0x00)), (error) => error instanceof FrameError && error.kind === 'compressionContextBroken');
});

test('the frame size limit holds at the limit and refuses one byte past it', () => {
  const limits = { ...FrameLimits.standard, maximumFrameBytes: 10, maximumBodyBytes: 10 };
  const decoder = new FrameDecoder(CompressionMode.none, limits);
  const atLimit = new Uint8Array(10); atLimit[0] = 0x40;
  assert.equal(decoder.decode(atLimit).type, 'application');
  const over = new Uint8Array(11); over[0] = 0x40;
  assert.throws(() => decoder.decode(over), (error) => error instanceof FrameError && error.signature === 'frameTooLarge(size: 11, limit: 10)');
});

test('the body size limit holds at the limit and refuses one byte past it', () => {
  const limits = { ...FrameLimits.standard, maximumBodyBytes: 9 };
  const decoder = new FrameDecoder(CompressionMode.none, limits);
  assert.equal(decoder.decode(new Uint8Array(10).fill(0x40, 0, 1)).type, 'application');
  assert.throws(() => decoder.decode(new Uint8Array(11).fill(0x40, 0, 1)), (error) => error instanceof FrameError && error.signature === 'bodyTooLarge(size: 10, limit: 9)');
});

/** Each text or bytes limit at its limit and one past it, through encode and decode. */
const lengthLimits = [
  ['room name', 64, (/** @type {number} */ n) => ({ type: 'hello', protocolVersion: 1, schemaFingerprint: 1n, compressionModes: 0, room: 'r'.repeat(n), resumeToken: undefined, payload: new Uint8Array(0) })],
  ['resume token', 64, (/** @type {number} */ n) => ({ type: 'hello', protocolVersion: 1, schemaFingerprint: 1n, compressionModes: 0, room: '', resumeToken: new Uint8Array(n), payload: new Uint8Array(0) })],
  ['hello payload', 1024, (/** @type {number} */ n) => ({ type: 'hello', protocolVersion: 1, schemaFingerprint: 1n, compressionModes: 0, room: '', resumeToken: undefined, payload: new Uint8Array(n) })],
  ['reject text', 256, (/** @type {number} */ n) => ({ type: 'reject', reason: 0, text: 't'.repeat(n) })],
  ['disconnect text', 256, (/** @type {number} */ n) => ({ type: 'disconnect', reason: 0, text: 't'.repeat(n) })],
  ['input', 512, (/** @type {number} */ n) => ({ type: 'input', ackTick: undefined, newestSequence: 1, inputs: [new Uint8Array(n)] })],
];

for (const [field, limit, make] of lengthLimits) {
  test(`${field}: ${limit} bytes pass, ${Number(limit) + 1} are refused by the encoder and the decoder`, () => {
    const build = /** @type {(n: number) => import('../message.js').Message} */ (make);
    const frame = encodeFrame(build(Number(limit)));
    assert.deepEqual(new FrameDecoder().decode(frame), build(Number(limit)));
    assert.throws(() => encodeFrame(build(Number(limit) + 1)), (error) => error instanceof FrameError && error.kind === 'lengthExceeded');
    // A frame over the limit, built with a raised limit, is refused by a standard decoder.
    const big = encodeFrame(build(Number(limit) + 1), { ...FrameLimits.standard, maximumRoomNameBytes: 9999, maximumResumeTokenBytes: 9999, maximumHelloPayloadBytes: 9999, maximumTextBytes: 9999, maximumInputBytes: 9999 });
    assert.throws(() => new FrameDecoder().decode(big), (error) => error instanceof FrameError && error.signature === `lengthExceeded(field: "${field}", length: ${Number(limit) + 1}, limit: ${limit})`);
  });
}

test('inputs per message: 32 pass, 33 are refused', () => {
  const message = (/** @type {number} */ n) => ({ type: /** @type {'input'} */ ('input'), ackTick: 5, newestSequence: 40, inputs: Array.from({ length: n }, () => Uint8Array.of(1)) });
  assert.equal(/** @type {any} */ (new FrameDecoder().decode(encodeFrame(message(32)))).inputs.length, 32);
  assert.throws(() => encodeFrame(message(33)), (error) => error instanceof FrameError && error.signature === 'tooManyInputs(count: 33, limit: 32)');
});

test('the inflation size cap refuses a perFrame body that inflates past the body limit', async () => {
  const { deflateSync } = await import('node:zlib');
  const limits = { ...FrameLimits.standard, maximumBodyBytes: 1000 };
  const atLimit = Uint8Array.of(0xc0, ...deflateSync(new Uint8Array(1000).fill(7)));
  assert.equal(/** @type {any} */ (new FrameDecoder(CompressionMode.perFrame, limits).decode(atLimit)).body.length, 1000);
  const over = Uint8Array.of(0xc0, ...deflateSync(new Uint8Array(1001).fill(7)));
  assert.throws(() => new FrameDecoder(CompressionMode.perFrame, limits).decode(over), (error) => error instanceof FrameError && error.signature === 'inflation(inflatedSizeExceeded(limit: 1000))');
});

test('perFrame and streaming inflate what node:zlib deflates, frame after frame', async () => {
  const zlib = await import('node:zlib');
  let seed = 99;
  const random = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed >>> 24; };
  const perFrame = new FrameDecoder(CompressionMode.perFrame);
  const streaming = new FrameDecoder(CompressionMode.streaming);
  const deflater = zlib.createDeflateRaw({ level: 6 });
  for (let round = 0; round < 40; round++) {
    const body = Uint8Array.from({ length: 50 + random() * 40 }, (_, index) => (index % 7 === 0 ? random() : index & 0x3f));
    const frame = Uint8Array.of(0xc0, ...zlib.deflateSync(body));
    assert.deepEqual(/** @type {any} */ (perFrame.decode(frame)).body, body);
    deflater.write(body);
    const chunks = await new Promise((resolve) => { const parts = /** @type {Buffer[]} */ ([]); const on = (/** @type {Buffer} */ part) => parts.push(part); deflater.on('data', on); deflater.flush(zlib.constants.Z_SYNC_FLUSH, () => { deflater.off('data', on); resolve(Buffer.concat(parts)); }); });
    const data = /** @type {Buffer} */ (chunks).subarray(0, -4);
    assert.deepEqual(/** @type {any} */ (streaming.decode(Uint8Array.of(0xc0, ...data))).body, body, `streaming frame ${round}`);
  }
});
