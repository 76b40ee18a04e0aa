// The client session over a fake WebSocket: handshake, snapshots against stored baselines,
// acknowledgements, inputs with redundancy, pings, bad frames, reject, leave; and the
// reconnecting session: backoff with jitter, the resume token in storage, refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientSession, closeWait } from '../clientSession.js';
import { CompressionMode, DeltaCoding, DisconnectReason, RejectReason } from '../message.js';
import { ReconnectPolicy } from '../reconnectPolicy.js';
import { ReconnectingSession } from '../reconnectingSession.js';
import { FakeSocket, MemoryStorage, VirtualClock } from './fakes.mjs';
import { readVector, vectorSchemas } from './vectors.mjs';

const schema = vectorSchemas.arena;
const xKind = schema.entityTypes[0].fields[0].kind;

/** A one-axis game on the vectors' arena schema: the input is a step in x (in quantized units). */
const game = {
  schema,
  encodeInput: (/** @type {unknown} */ input) => Uint8Array.of(Number(input) & 0xff),
  predict: {
    restore: (/** @type {any} */ snapshot, /** @type {number} */ clientID) => {
      const index = snapshot.indexOf(clientID);
      return index < 0 ? undefined : { id: clientID, x: snapshot.double(index, 0), values: snapshot.values[index].map((/** @type {any} */ _, /** @type {number} */ f) => snapshot.double(index, f)) };
    },
    step: (/** @type {any} */ state, /** @type {unknown} */ input, /** @type {number} */ _dt) => ({ ...state, x: state.x + Number(input) / 64 }),
    localEntity: (/** @type {any} */ state, /** @type {number} */ _id) => ({ id: state.id, typeIndex: 0, values: [state.x, ...state.values.slice(1)] }),
  },
};

const welcome = (/** @type {number} */ id, /** @type {number[]} */ token = [1, 2, 3], compression = CompressionMode.none) => /** @type {const} */ ({
  type: 'welcome', clientID: id, tickRate: 30, currentTick: 99, serverTime: 10_000_000n, compression, resumeToken: Uint8Array.from(token),
});

const snapshotMessage = (/** @type {string} */ vector, /** @type {number} */ tick, /** @type {number | undefined} */ baselineTick, serverTime = 10_000_000n, lastProcessedInput = 0) => /** @type {const} */ ({
  type: 'snapshot', tick, baselineTick, lastProcessedInput, serverTime, delta: readVector(vector).bytes,
});

/**
 * A session past its handshake.
 * @param {VirtualClock} [clock]
 * @param {object} [welcomeFields] Fields over `welcome(1)`'s, such as a `deltaCoding`.
 * @param {object} [configuration] Settings over `{room: 'lobby'}`.
 */
function connected(clock = new VirtualClock(), welcomeFields = {}, configuration = {}) {
  const session = new ClientSession(game, { clock: clock.read, configuration: { room: 'lobby', ...configuration } });
  const socket = new FakeSocket();
  session.connect(socket);
  socket.open();
  socket.deliverMessage({ ...welcome(1), ...welcomeFields });
  return { session, socket, clock };
}

test('the hello offers entropy-coded and motion-predicted deltas (bits 7 and 5) from offersEntropyDeltas alone, never from the configured modes', () => {
  for (const offersEntropyDeltas of [false, true]) {
    const session = new ClientSession(game, { configuration: { compressionModes: 0xff, offersRenderTimes: false, offersEntropyDeltas } });
    const socket = new FakeSocket();
    session.connect(socket);
    socket.open();
    const [hello] = socket.messages;
    assert.equal(/** @type {any} */ (hello).compressionModes, offersEntropyDeltas ? 0xbf : 0x1f, 'the mode bits 0-2, bit 3 (text fields, always), bit 4 (the pong hold, offered by default), and bits 7 and 5 when offered');
  }
});

test('with the welcome choosing motion-predicted entropy deltas, snapshots decode down their chain, each with its baseline\'s motion', () => {
  const { session, socket } = connected(undefined, { deltaCoding: DeltaCoding.predictedEntropy });
  assert.equal(session.deltaCoding, DeltaCoding.predictedEntropy);
  // A whole snapshot is coded alike in both entropy codings (PROTOCOL.md 4.5.6).
  socket.deliverMessage(snapshotMessage('entropy-01-arena-full.hex', 100, undefined));
  socket.deliverMessage(snapshotMessage('entropy-07-arena-motion-start.hex', 101, 100, 10_033_333n));
  socket.deliverMessage(snapshotMessage('entropy-08-arena-predicted.hex', 102, 101, 10_066_666n));
  assert.equal(session.metrics.snapshotsUndecodable, 0, String(session.lastDecodeError));
  assert.equal(session.metrics.snapshotsReceived, 3);
  assert.deepEqual(session.latestSnapshot?.describeEntities(), readVector('entropy-08-arena-predicted.hex').keys.entity);
});

test('with the welcome choosing plain entropy-coded deltas, snapshots decode against stored baselines', () => {
  const { session, socket } = connected(undefined, { deltaCoding: DeltaCoding.entropy });
  assert.equal(session.deltaCoding, DeltaCoding.entropy);
  socket.deliverMessage(snapshotMessage('entropy-01-arena-full.hex', 100, undefined));
  socket.deliverMessage(snapshotMessage('entropy-02-arena-delta.hex', 101, 100, 10_033_333n));
  assert.equal(session.metrics.snapshotsUndecodable, 0, String(session.lastDecodeError));
  assert.deepEqual(session.latestSnapshot?.describeEntities(), readVector('entropy-02-arena-delta.hex').keys.entity);
});

test('a welcome that chooses what the hello did not offer ends the session with 4004 (PROTOCOL.md 5.4)', () => {
  for (const [welcomeFields, configuration] of /** @type {const} */ ([
    [{ deltaCoding: DeltaCoding.entropy }, { offersEntropyDeltas: false }],
    [{ acceptsRenderTimes: true }, { offersRenderTimes: false }],
    [{ compression: CompressionMode.streaming }, { compressionModes: 1 }],
  ])) {
    const { session, socket } = connected(undefined, welcomeFields, configuration);
    assert.equal(session.status.kind, 'disconnected', JSON.stringify(welcomeFields));
    assert.match(/** @type {any} */ (session.status).reason, /did not offer/);
    assert.equal(/** @type {any} */ (socket).closedWith?.code, 4004);
  }
});

test('a welcome with bit 5 and not bit 7 does not decode, and ends the session with 4004 (PROTOCOL.md 5.4)', () => {
  const session = new ClientSession(game, { configuration: { room: 'lobby' } });
  const socket = new FakeSocket();
  session.connect(socket);
  socket.open();
  // vectors/frame-error-welcome-prediction-without-entropy.hex
  socket.deliver(Uint8Array.of(0x02, 0x07, 0x3c, 0xe8, 0x07, 0x90, 0x9b, 0xf9, 0x07, 0x20, 0x00));
  assert.equal(session.status.kind, 'disconnected');
  assert.equal(/** @type {any} */ (socket).closedWith?.code, 4004);
});

test('the hello goes out once the socket opens, with the fingerprint, both compression modes, the render-time, pong-hold and text-field offers and the room', () => {
  const session = new ClientSession(game, { configuration: { room: 'lobby' } });
  const socket = new FakeSocket();
  session.connect(socket);
  assert.equal(socket.binaryType, 'arraybuffer');
  assert.equal(socket.sent.length, 0, 'nothing is sent before open');
  socket.open();
  const [hello] = socket.messages;
  assert.deepEqual(hello, { type: 'hello', protocolVersion: 1, schemaFingerprint: schema.fingerprint, compressionModes: 0xfb, room: 'lobby', resumeToken: undefined, payload: new Uint8Array(0) });
  assert.equal(session.status.kind, 'handshaking');
  socket.deliverMessage(welcome(7));
  assert.deepEqual(session.status, { kind: 'connected' });
  assert.equal(session.clientID, 7);
  assert.equal(session.tickRate, 30);
});

test('a configured connect token goes in the joining hello only: the welcome spends it, and the resuming hello carries the resume token instead (PROTOCOL.md 5.3.1)', () => {
  const connectToken = { expireTimestamp: 1800000060n, nonce: new Uint8Array(24).fill(0x40), encryptedPrivateData: new Uint8Array(1024).fill(0x5a) };
  const session = new ClientSession(game, { configuration: { room: 'red', connectToken } });
  const first = new FakeSocket();
  session.connect(first);
  first.open();
  assert.deepEqual(/** @type {any} */ (first.messages[0]).connectToken, connectToken, 'the joining hello carries the token');
  first.deliverMessage(welcome(7));
  assert.equal(session.connectToken, undefined, 'the welcome spent it');
  const second = new FakeSocket();
  session.connect(second);
  second.open();
  const resume = /** @type {any} */ (second.messages[0]);
  assert.equal(resume.connectToken, undefined, 'a resuming hello carries no connect token');
  assert.deepEqual(resume.resumeToken, Uint8Array.of(1, 2, 3));
});

test('snapshots decode against stored baselines and the next input acknowledges the newest', () => {
  const { session, socket } = connected();
  socket.deliverMessage(snapshotMessage('delta-01-arena-full.hex', 100, undefined));
  socket.deliverMessage(snapshotMessage('delta-02-arena-delta.hex', 101, 100, 10_033_333n));
  assert.equal(session.metrics.snapshotsReceived, 2);
  assert.equal(session.metrics.fullSnapshotsReceived, 1);
  assert.deepEqual(session.latestSnapshot?.ids, [1, 2, 9]);
  session.tick(undefined);
  const input = socket.messages.find((message) => message.type === 'input');
  assert.deepEqual(input, { type: 'input', ackTick: 101, newestSequence: 0, inputs: [] });
});

test('a delta whose baseline is not held is counted as undecodable, not applied', () => {
  const { session, socket } = connected();
  socket.deliverMessage(snapshotMessage('delta-02-arena-delta.hex', 101, 100));
  assert.equal(session.metrics.snapshotsUndecodable, 1);
  assert.equal(session.latestSnapshot, undefined);
});

test('inputs repeat the last three unacknowledged ones, newest first, until the server applies them', () => {
  const { session, socket } = connected();
  for (const step of [1, 2, 3, 4]) session.tick(step);
  const inputs = socket.messages.filter((message) => message.type === 'input');
  assert.deepEqual(inputs.map((message) => /** @type {any} */ (message).newestSequence), [1, 2, 3, 4]);
  assert.deepEqual(/** @type {any} */ (inputs[3]).inputs, [Uint8Array.of(4), Uint8Array.of(3), Uint8Array.of(2)]);
  socket.deliverMessage(snapshotMessage('delta-01-arena-full.hex', 100, undefined, 10_000_000n, 3));
  session.tick(5);
  const last = /** @type {any} */ (socket.messages.filter((message) => message.type === 'input').at(-1));
  assert.deepEqual(last.inputs, [Uint8Array.of(5), Uint8Array.of(4)], 'inputs up to 3 were applied; 4 and 5 remain');
});

test('once the welcome accepts render times, every input carries what the last render showed (PROTOCOL.md 5.7.1)', () => {
  const clock = new VirtualClock();
  const session = new ClientSession(game, { clock: clock.read, configuration: { room: 'lobby' } });
  const socket = new FakeSocket();
  session.connect(socket);
  socket.open();
  socket.deliverMessage({ ...welcome(1), acceptsRenderTimes: true });
  assert.equal(session.sendsRenderTimes, true);
  socket.deliverMessage(snapshotMessage('delta-01-arena-full.hex', 100, undefined, 10_000_000n));
  socket.deliverMessage(snapshotMessage('delta-02-arena-delta.hex', 101, 100, 10_100_000n));
  clock.advance(0.05);
  session.render();
  const shown = session.renderTime;
  assert.ok(shown && shown.tick >= 100 && shown.tick <= 101, `render time ${JSON.stringify(shown)}`);
  session.tick(1);
  session.tick(2);
  const inputs = /** @type {any[]} */ (socket.messages.filter((message) => message.type === 'input'));
  assert.deepEqual(inputs[0].renderTimes, [shown]);
  assert.deepEqual(inputs[1].renderTimes, [shown, shown], 'one render time per repeated input, newest first');
});

test('without the welcome accepting render times, inputs keep the version 1 form', () => {
  const { session, socket } = connected();
  session.tick(1);
  const input = /** @type {any} */ (socket.messages.find((message) => message.type === 'input'));
  assert.equal(session.sendsRenderTimes, false);
  assert.equal('renderTimes' in input, false);
});

test('a ping goes out on the first tick and every ping interval; a pong sets the clock offset', () => {
  const { session, socket, clock } = connected();
  session.tick(undefined);
  clock.advance(0.2);
  session.tick(undefined);
  clock.advance(0.4);
  session.tick(undefined);
  const pings = socket.messages.filter((message) => message.type === 'ping');
  assert.equal(pings.length, 2);
  const sent = /** @type {any} */ (pings[1]).clientTime;
  clock.advance(0.1);
  socket.deliverMessage({ type: 'pong', clientTime: sent, serverTime: 50_000_000n });
  assert.ok(Math.abs(session.clockSync.roundTrip - 0.1) < 1e-6);
  assert.ok(Math.abs((session.estimatedServerTime ?? 0) - 50.05) < 1e-6, `server time ${session.estimatedServerTime}`);
});

test('a pong with the server hold (PROTOCOL.md 5.9.1) gives the network round trip and the exact offset', () => {
  const { session, socket, clock } = connected(new VirtualClock(), { acceptsPongHold: true });
  session.tick(undefined);
  const ping = /** @type {any} */ (socket.messages.find((message) => message.type === 'ping'));
  const sent = Number(ping.clientTime) / 1e6;
  // 20 ms up, held 30 ms for the server's tick, 20 ms down; the server's clock is 50 s ahead.
  clock.advance(0.07);
  const serverTime = BigInt(Math.round((sent + 50 + 0.05) * 1e6));
  socket.deliverMessage({ type: 'pong', clientTime: ping.clientTime, serverTime, hold: 30_000n });
  assert.ok(Math.abs(session.clockSync.roundTrip - 0.04) < 1e-6, `round trip ${session.clockSync.roundTrip}`);
  assert.ok(Math.abs(session.timing.serverHold - 0.03) < 1e-6, `hold ${session.timing.serverHold}`);
  assert.ok(Math.abs((session.clockSync.offset ?? 0) - 50) < 1e-6, `offset ${session.clockSync.offset}`);
});

test('render interpolates between snapshots and shows the predicted local player', () => {
  const { session, socket, clock } = connected();
  socket.deliverMessage(snapshotMessage('delta-01-arena-full.hex', 100, undefined, 10_000_000n));
  socket.deliverMessage(snapshotMessage('delta-02-arena-delta.hex', 101, 100, 10_100_000n));
  session.tick(64);
  clock.advance(0.05);
  const view = session.render();
  assert.ok(view, 'a view');
  const local = view.entities.find((entity) => entity.id === 1);
  // Predicted: the newest authoritative x (33424 → 10.25) plus the unacknowledged step of 1.
  assert.equal(local?.values[0], xKind.dequantize(33424) + 1);
  const other = view.entities.find((entity) => entity.id === 2);
  assert.ok(other && other.values[3] <= 75 && other.values[3] >= 37, `health interpolated: ${other?.values[3]}`);
});

test('a frame that breaks the streaming context closes with 4004 and says why', () => {
  const clock = new VirtualClock();
  const session = new ClientSession(game, { clock: clock.read });
  const socket = new FakeSocket();
  session.connect(socket);
  socket.open();
  socket.deliverMessage(welcome(1, [1], CompressionMode.streaming));
  socket.deliver(Uint8Array.of(0xc4, 0xff, 0xff, 0xff));
  assert.deepEqual(socket.closedWith, { code: 4004, reason: 'malformed frame' });
  assert.equal(session.status.kind, 'disconnected');
  assert.match(/** @type {any} */ (session.status).reason, /cannot be decoded/);
});

test('a bad frame in mode none is counted and skipped; the session carries on', () => {
  const { session, socket } = connected();
  socket.deliver(Uint8Array.of(0x0a));
  assert.equal(session.metrics.snapshotsUndecodable, 1);
  assert.equal(session.lastDecodeError?.name, 'FrameError');
  assert.equal(session.status.kind, 'connected');
  assert.equal(socket.closedWith, undefined);
});

test('a reject ends the session with its reason, and the client closes if the host does not within closeWait', () => {
  const clock = new VirtualClock();
  const session = new ClientSession(game, { clock: clock.read });
  const socket = new FakeSocket();
  session.connect(socket);
  socket.open();
  socket.deliverMessage({ type: 'reject', reason: RejectReason.schemaMismatch, text: 'schema differs' });
  assert.deepEqual(session.status, { kind: 'rejected', reason: 2, text: 'schema differs' });
  session.tick(undefined);
  assert.equal(socket.closedWith, undefined, 'waits for the host to close');
  clock.advance(closeWait);
  session.tick(undefined);
  assert.equal(socket.closedWith?.code, 1000);
});

test('leave sends a disconnect (leaving) and closes with 1000', () => {
  const { session, socket } = connected();
  session.leave();
  assert.deepEqual(socket.messages.at(-1), { type: 'disconnect', reason: 1, text: '' });
  assert.deepEqual(socket.closedWith, { code: 1000, reason: 'leaving' });
  assert.deepEqual(session.status, { kind: 'disconnected', reason: 'left' });
  assert.equal(session.resumeToken, undefined);
});

test('a text message closes with 1003', () => {
  const { session, socket } = connected();
  socket.onmessage?.({ data: 'hello' });
  assert.equal(socket.closedWith?.code, 1003);
  assert.equal(session.status.kind, 'disconnected');
});

test('the reconnect policy doubles from 1 s to 30 s, shortened by up to half at random', () => {
  const policy = new ReconnectPolicy();
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((attempt) => policy.delay(attempt, 0)), [1, 2, 4, 8, 16, 30, 30]);
  assert.equal(policy.delay(1, 1), 0.5);
  assert.equal(policy.delay(3, 0.5), 3);
});

function reconnecting(/** @type {MemoryStorage} */ storage, clock = new VirtualClock(), policy = new ReconnectPolicy()) {
  /** @type {FakeSocket[]} */
  const sockets = [];
  const client = new ReconnectingSession(game, {
    url: 'ws://127.0.0.1:7000/', clock: clock.read, configuration: { room: 'r' }, policy, storage, random: () => 0.5,
    openSocket: (url, protocol) => { const socket = new FakeSocket(url, protocol); sockets.push(socket); return socket; },
  });
  /** @type {any[]} */
  const states = [];
  client.onStateChange = (state) => states.push(state);
  return { client, sockets, clock, states };
}

test('a dropped connection reconnects after the backoff and resumes with the stored token', () => {
  const storage = new MemoryStorage();
  const { client, sockets, clock, states } = reconnecting(storage);
  client.tick(undefined);
  assert.equal(sockets.length, 1);
  assert.equal(sockets[0].protocol, 'tickwire.v1');
  sockets[0].open();
  sockets[0].deliverMessage(welcome(4, [9, 9]));
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'connected', resumed: false });
  assert.equal(storage.getItem('tickwire.resumeToken.r'), '0909', 'the token is kept in sessionStorage');
  sockets[0].drop(1006);
  client.tick(undefined);
  assert.equal(client.state.kind, 'waitingToReconnect');
  assert.equal(/** @type {any} */ (client.state).at, clock.time + 0.75, 'base 1 s, jitter 0.5 × random 0.5');
  clock.advance(0.7);
  client.tick(undefined);
  assert.equal(sockets.length, 1, 'not before the delay');
  clock.advance(0.05);
  client.tick(undefined);
  assert.equal(sockets.length, 2);
  sockets[1].open();
  assert.deepEqual(/** @type {any} */ (sockets[1].messages[0]).resumeToken, Uint8Array.of(9, 9));
  sockets[1].deliverMessage(welcome(4, [9, 9]));
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'connected', resumed: true });
  assert.equal(client.reconnects, 1);
  assert.deepEqual(states.map((state) => state.kind), ['connected', 'waitingToReconnect', 'connecting', 'connected'], 'the first state, connecting, is the initial one');
});

test('a new page in the same tab resumes from sessionStorage', () => {
  const storage = new MemoryStorage();
  storage.setItem('tickwire.resumeToken.r', 'abcd');
  const { client, sockets } = reconnecting(storage);
  client.tick(undefined);
  sockets[0].open();
  assert.deepEqual(/** @type {any} */ (sockets[0].messages[0]).resumeToken, Uint8Array.of(0xab, 0xcd));
});

test('failed attempts back off exponentially; a refusal that retrying cannot fix is final', () => {
  const storage = new MemoryStorage();
  const { client, sockets, clock } = reconnecting(storage);
  client.tick(undefined);
  const delays = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    sockets[sockets.length - 1].drop(1006);
    client.tick(undefined);
    const state = /** @type {any} */ (client.state);
    delays.push(state.at - clock.time);
    clock.time = state.at;
    client.tick(undefined);
  }
  assert.deepEqual(delays, [0.75, 1.5, 3]);
  assert.equal(client.failedAttempts, 3);
  const socket = sockets[sockets.length - 1];
  socket.open();
  socket.deliverMessage({ type: 'reject', reason: RejectReason.schemaMismatch, text: 'other game' });
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'refused', reason: 2, text: 'other game' });
});

test('leave is final and forgets the stored token', () => {
  const storage = new MemoryStorage();
  const { client, sockets } = reconnecting(storage);
  client.tick(undefined);
  sockets[0].open();
  sockets[0].deliverMessage(welcome(4, [1]));
  client.tick(undefined);
  assert.equal(storage.getItem('tickwire.resumeToken.r'), '01');
  client.leave();
  assert.deepEqual(client.state, { kind: 'left' });
  assert.equal(storage.getItem('tickwire.resumeToken.r'), null);
  assert.equal(sockets[0].closedWith?.code, 1000);
});

test('no welcome within the handshake timeout counts as a failed attempt', () => {
  const { client, clock } = reconnecting(new MemoryStorage());
  client.tick(undefined);
  clock.advance(10.5);
  client.tick(undefined);
  assert.equal(client.state.kind, 'waitingToReconnect');
  assert.match(client.lastFailure ?? '', /no welcome/);
});

test('a redirect is followed at once to its URL with the same hello; past three in a row the session gives up', () => {
  const { client, sockets } = reconnecting(new MemoryStorage());
  client.tick(undefined);
  for (let hop = 1; hop <= 3; hop++) {
    sockets[sockets.length - 1].open();
    sockets[sockets.length - 1].deliverMessage({ type: 'reject', reason: RejectReason.redirect, text: `ws://host-${hop}/r` });
    client.tick(undefined);
    assert.equal(sockets.length, hop + 1, `redirect ${hop} opens a connection at once`);
    assert.equal(sockets[hop].url, `ws://host-${hop}/r`);
  }
  sockets[3].open();
  assert.equal(/** @type {any} */ (sockets[3].messages[0]).room, 'r', 'the same hello goes to the new URL');
  sockets[3].deliverMessage({ type: 'reject', reason: RejectReason.redirect, text: 'ws://host-4/r' });
  client.tick(undefined);
  assert.equal(client.state.kind, 'refused');
  assert.match(/** @type {any} */ (client.state).text, /gave up after 3 redirects/);
});

test('a moved disconnect reconnects at once to its URL; a later drop comes back to the entry URL', () => {
  const { client, sockets, clock } = reconnecting(new MemoryStorage());
  client.tick(undefined);
  sockets[0].open();
  sockets[0].deliverMessage(welcome(4, [9, 9]));
  client.tick(undefined);
  sockets[0].deliverMessage({ type: 'disconnect', reason: DisconnectReason.moved, text: 'ws://other/r' });
  client.tick(undefined);
  assert.equal(sockets.length, 2, 'no backoff');
  assert.equal(sockets[1].url, 'ws://other/r');
  sockets[1].open();
  assert.deepEqual(/** @type {any} */ (sockets[1].messages[0]).resumeToken, Uint8Array.of(9, 9), 'it resumes with its token');
  sockets[1].deliverMessage(welcome(4, [9, 9]));
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'connected', resumed: true });
  sockets[1].drop(1006);
  client.tick(undefined);
  const state = /** @type {any} */ (client.state);
  assert.equal(state.kind, 'waitingToReconnect');
  clock.time = state.at;
  client.tick(undefined);
  assert.equal(sockets[2].url, 'ws://127.0.0.1:7000/', 'after a drop the client comes back through its entry URL');
});

test('a kick is final: the session stops with its words and forgets the stored token (PROTOCOL.md 5.10)', () => {
  const storage = new MemoryStorage();
  const { client, sockets, clock } = reconnecting(storage);
  client.tick(undefined);
  sockets[0].open();
  sockets[0].deliverMessage(welcome(4, [9, 9]));
  client.tick(undefined);
  sockets[0].deliverMessage({ type: 'disconnect', reason: DisconnectReason.kicked, text: 'cheating' });
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'kicked', text: 'cheating' });
  assert.equal(storage.getItem('tickwire.resumeToken.r'), null, 'the token resumes nothing');
  clock.advance(60);
  client.tick(undefined);
  assert.equal(sockets.length, 1, 'no attempt after a final kick');
});

test('a kick that arrives with the welcome, before one tick, is still final', () => {
  const storage = new MemoryStorage();
  const { client, sockets, clock } = reconnecting(storage);
  client.tick(undefined);
  sockets[0].open();
  sockets[0].deliverMessage(welcome(4, [9, 9]));
  sockets[0].deliverMessage({ type: 'disconnect', reason: DisconnectReason.kicked, text: 'banned' });
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'kicked', text: 'banned' }, 'welcomed, then kicked: not a failed attempt');
  assert.equal(storage.getItem('tickwire.resumeToken.r'), null, 'the token resumes nothing');
  clock.advance(60);
  client.tick(undefined);
  assert.equal(sockets.length, 1, 'no attempt after a final kick');
});

test('a kick that allows a rejoin (reason 9) reconnects with backoff, without the token', () => {
  const storage = new MemoryStorage();
  const { client, sockets, clock } = reconnecting(storage);
  client.tick(undefined);
  sockets[0].open();
  sockets[0].deliverMessage(welcome(4, [9, 9]));
  client.tick(undefined);
  assert.notEqual(storage.getItem('tickwire.resumeToken.r'), null, 'the welcome stored its token');
  sockets[0].deliverMessage({ type: 'disconnect', reason: DisconnectReason.kickedMayRejoin, text: 'afk' });
  client.tick(undefined);
  assert.equal(storage.getItem('tickwire.resumeToken.r'), null, 'the revoked token is forgotten by storage too');
  const state = /** @type {any} */ (client.state);
  assert.equal(state.kind, 'waitingToReconnect');
  clock.time = state.at;
  client.tick(undefined);
  assert.equal(sockets.length, 2);
  sockets[1].open();
  assert.equal(/** @type {any} */ (sockets[1].messages[0]).resumeToken, undefined, 'it joins as a new player');
});

test('a game refusal (application reason 32768) is final, with its words', () => {
  const { client, sockets, clock } = reconnecting(new MemoryStorage());
  client.tick(undefined);
  sockets[0].open();
  sockets[0].deliverMessage({ type: 'reject', reason: 32768, text: 'banned until Friday' });
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'refused', reason: 32768, text: 'banned until Friday' });
  clock.advance(60);
  client.tick(undefined);
  assert.equal(sockets.length, 1);
});

test('a delta whose header disagrees with its snapshot message is refused as baselineMismatch, even with its baseline held (PROTOCOL.md 5.6)', () => {
  // delta-02 is tick 101 against 100; delta-01 is a whole snapshot of tick 100.
  for (const [vector, tick, baselineTick] of /** @type {const} */ ([
    ['delta-02-arena-delta.hex', 102, 100], // another tick against the held baseline
    ['delta-02-arena-delta.hex', 101, undefined], // a delta in a message of distance 0
    ['delta-01-arena-full.hex', 100, 99], // a whole snapshot in a message that names a baseline
  ])) {
    const { session, socket } = connected();
    socket.deliverMessage(snapshotMessage('delta-01-arena-full.hex', 100, undefined));
    socket.deliverMessage(snapshotMessage(vector, tick, baselineTick, 10_033_333n));
    assert.equal(session.metrics.snapshotsUndecodable, 1, `${vector} as tick ${tick} against ${baselineTick}`);
    assert.equal(/** @type {any} */ (session.lastDecodeError)?.kind, 'baselineMismatch');
    assert.equal(session.latestSnapshot?.tick, 100, 'only the whole snapshot was taken');
  }
});
