// The matchmade session (matchmadeSession.js) over fake WebSockets and a virtual clock, its seats
// from a scripted `ask` or, end to end, from a Matchmaker asking the fake matchmaker: it joins the
// seat's room with the seat's hello token, resumes within the grace period without a new seat,
// asks again after the grace period or when the room asks for a token it has spent, backs off on
// a matchmaker that is busy or away, and stops on one that refuses for good.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MatchmakerError } from '../errors.js';
import { MatchmadeSession } from '../matchmadeSession.js';
import { Matchmaker, seatFromJSON } from '../matchmaker.js';
import { RejectReason } from '../message.js';
import { ReconnectPolicy } from '../reconnectPolicy.js';
import { FakeSocket, MemoryStorage, VirtualClock } from './fakes.mjs';
import { seatAnswer, startFakeMatchmaker, vectorHelloToken } from './fakeMatchmaker.mjs';
import { vectorSchemas } from './vectors.mjs';

const game = { schema: vectorSchemas.arena, encodeInput: () => new Uint8Array(0) };
const welcome = (/** @type {number} */ id, /** @type {number[]} */ token = [1, 2, 3]) => /** @type {const} */ ({
  type: 'welcome', clientID: id, tickRate: 30, currentTick: 99, serverTime: 10_000_000n, compression: 0, resumeToken: Uint8Array.from(token),
});
/** Lets the promises settle (the seat's answer), as a page's next tick would find them. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A matchmade session whose `ask` answers from `answers` in turn (a seat's fields, or an error to throw).
 * @param {Array<Record<string, unknown> | Error>} answers
 * @param {object} [options]
 */
function scripted(answers, options = {}) {
  const clock = new VirtualClock();
  /** @type {FakeSocket[]} */
  const sockets = [];
  let asked = 0;
  const ask = async () => {
    const answer = answers[Math.min(asked++, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return seatFromJSON(seatAnswer(answer));
  };
  const client = new MatchmadeSession(game, ask, {
    clock: clock.read, storage: new MemoryStorage(), random: () => 0,
    openSocket: (url, protocol) => { const socket = new FakeSocket(url, protocol); sockets.push(socket); return socket; },
    policy: new ReconnectPolicy({ baseDelay: 1, maximumDelay: 8, jitter: 0 }), ...options,
  });
  return { client, clock, sockets, asked: () => asked };
}

test('the first tick asks for a seat; the next joins its room at its ws URL with its hello token', async () => {
  const { client, sockets, asked } = scripted([{}]);
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'matchmaking', attempt: 1 });
  assert.equal(asked(), 1);
  assert.equal(client.render(), undefined, 'nothing to show before a seat');
  await settle();
  client.tick(undefined);
  assert.equal(sockets.length, 1);
  assert.equal(sockets[0].url, 'ws://127.0.0.1:7777/red');
  sockets[0].open();
  const hello = /** @type {any} */ (sockets[0].messages[0]);
  assert.equal(hello.room, 'red');
  assert.equal(hello.resumeToken, undefined);
  assert.equal(hello.connectToken.expireTimestamp, 1800000060n);
  assert.deepEqual(hello.connectToken.encryptedPrivateData, vectorHelloToken.slice(32));
  sockets[0].deliverMessage(welcome(5));
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'connected', resumed: false });
  assert.equal(client.seat?.displayName, 'ada#1');
});

test('a seat with a wss URL is joined there; one with only udp ends in matchmakerRefused noWebSocketURL', async () => {
  const secure = scripted([{ urls: { ws: 'ws://a/red', wss: 'wss://a/red' } }]);
  secure.client.tick(undefined);
  await settle();
  secure.client.tick(undefined);
  assert.equal(secure.sockets[0].url, 'wss://a/red');
  const udpOnly = scripted([{ urls: { udp: 'udp://a:1/red' } }]);
  udpOnly.client.tick(undefined);
  await settle();
  udpOnly.client.tick(undefined);
  assert.equal(udpOnly.client.state.kind, 'matchmakerRefused');
  assert.equal(/** @type {any} */ (udpOnly.client.state).code, 'noWebSocketURL');
  assert.ok(udpOnly.client.isFinal);
});

/** A session past its first welcome, in room red. */
async function playing(answers = [{}, { room: 'blue', urls: { ws: 'ws://127.0.0.1:7779/blue' } }], options = {}) {
  const setup = scripted(answers, options);
  setup.client.tick(undefined);
  await settle();
  setup.client.tick(undefined);
  setup.sockets[0].open();
  setup.sockets[0].deliverMessage(welcome(5));
  setup.client.tick(undefined);
  assert.equal(setup.client.state.kind, 'connected');
  return setup;
}

test('a drop within the resume grace reconnects to the same room with the resume token, asking for no new seat', async () => {
  const { client, clock, sockets, asked } = await playing();
  sockets[0].drop();
  client.tick(undefined);
  assert.equal(client.state.kind, 'waitingToReconnect');
  clock.advance(1);
  client.tick(undefined);
  assert.equal(sockets.length, 2);
  assert.equal(sockets[1].url, 'ws://127.0.0.1:7777/red');
  sockets[1].open();
  const hello = /** @type {any} */ (sockets[1].messages[0]);
  assert.deepEqual(hello.resumeToken, Uint8Array.of(1, 2, 3));
  assert.equal(hello.connectToken, undefined, 'the welcome spent the token');
  sockets[1].deliverMessage(welcome(5));
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'connected', resumed: true });
  assert.equal(asked(), 1);
});

test('no connection for longer than the resume grace asks the matchmaker again, and joins the new seat with its token', async () => {
  const { client, clock, sockets, asked } = await playing();
  sockets[0].drop();
  for (let second = 0; second < 12 && client.state.kind !== 'matchmaking'; second += 1) {
    clock.advance(1);
    client.tick(undefined);
    sockets.at(-1)?.drop(); // the room's process is gone: every attempt fails
  }
  assert.deepEqual(client.state, { kind: 'matchmaking', attempt: 1 });
  assert.match(client.lastFailure ?? '', /./);
  assert.equal(asked(), 2);
  await settle();
  const before = sockets.length;
  client.tick(undefined);
  const socket = sockets[before];
  assert.equal(socket.url, 'ws://127.0.0.1:7779/blue');
  socket.open();
  const hello = /** @type {any} */ (socket.messages[0]);
  assert.equal(hello.room, 'blue');
  assert.equal(hello.resumeToken, undefined, 'a new room: nothing to resume');
  assert.ok(hello.connectToken, 'the new seat\'s token');
  socket.deliverMessage(welcome(9));
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'connected', resumed: false });
  assert.equal(client.seat?.room, 'blue');
});

test('a seat whose room never answers is given up once it expires, and the matchmaker asked again', async () => {
  const { client, clock, sockets, asked } = scripted([{ expiresIn: 5 }, { room: 'blue', urls: { ws: 'ws://127.0.0.1:7779/blue' } }]);
  client.tick(undefined);
  await settle();
  client.tick(undefined);
  assert.equal(client.state.kind, 'connecting');
  for (let second = 0; second < 8 && client.state.kind !== 'matchmaking'; second += 1) {
    sockets.at(-1)?.drop();
    clock.advance(1);
    client.tick(undefined);
  }
  assert.equal(client.state.kind, 'matchmaking');
  assert.equal(asked(), 2);
  assert.match(client.lastReseat ?? '', /seat expired \(5 s\)/);
  await settle();
  client.tick(undefined);
  assert.equal(sockets.at(-1)?.url, 'ws://127.0.0.1:7779/blue');
});

test('a room that asks for a token the session has spent (reject 9 to a resume) gets a new seat', async () => {
  const { client, clock, sockets, asked } = await playing();
  sockets[0].drop();
  client.tick(undefined);
  clock.advance(1);
  client.tick(undefined);
  sockets[1].open();
  sockets[1].deliverMessage({ type: 'reject', reason: RejectReason.tokenRequired, text: 'this server admits players with a connect token' });
  client.tick(undefined);
  assert.equal(client.state.kind, 'matchmaking');
  assert.equal(asked(), 2);
  assert.match(client.lastReseat ?? '', /reject 9/);
});

test('a stored resume token the room no longer knows (reject 9) is dropped, and the seat\'s unspent token joins at once', async () => {
  const storage = new MemoryStorage();
  storage.setItem('tickwire.resumeToken.red', '0a0b0c');
  const { client, sockets, asked } = scripted([{}], { storage });
  client.tick(undefined);
  await settle();
  client.tick(undefined);
  sockets[0].open();
  assert.deepEqual(/** @type {any} */ (sockets[0].messages[0]).resumeToken, Uint8Array.of(10, 11, 12), 'a reload tries to resume first');
  sockets[0].deliverMessage({ type: 'reject', reason: RejectReason.tokenRequired, text: '' });
  client.tick(undefined);
  assert.equal(sockets.length, 2);
  sockets[1].open();
  const hello = /** @type {any} */ (sockets[1].messages[0]);
  assert.equal(hello.resumeToken, undefined);
  assert.ok(hello.connectToken, 'the same seat\'s token');
  assert.equal(asked(), 1, 'no new seat needed');
});

test('a busy or unreachable matchmaker is asked again after the backoff (Retry-After when given); a refusal for good is final', async () => {
  const busy = new MatchmakerError(429, 'tooManyRequests', 'slow down', 5);
  const away = new MatchmakerError(0, 'unreachable', 'fetch failed');
  const { client, clock, sockets, asked } = scripted([busy, away, {}]);
  client.tick(undefined);
  await settle();
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'waitingToMatchmake', attempt: 2, at: 105 });
  assert.match(client.lastFailure ?? '', /429 tooManyRequests/);
  clock.advance(5);
  client.tick(undefined);
  assert.equal(asked(), 2);
  await settle();
  client.tick(undefined);
  assert.deepEqual(client.state, { kind: 'waitingToMatchmake', attempt: 3, at: 107 }, 'the policy: 1 s doubled for the second failure');
  clock.advance(2);
  client.tick(undefined);
  await settle();
  client.tick(undefined);
  assert.equal(sockets.length, 1);
  assert.equal(client.state.kind, 'connecting');

  const refused = scripted([new MatchmakerError(403, 'forbidden', 'banned')]);
  refused.client.tick(undefined);
  await settle();
  refused.client.tick(undefined);
  assert.deepEqual(refused.client.state, { kind: 'matchmakerRefused', status: 403, code: 'forbidden', reason: 'banned' });
  assert.ok(refused.client.isFinal);
  refused.clock.advance(60);
  refused.client.tick(undefined);
  assert.equal(refused.asked(), 1, 'final: never asked again');
});

test('leave while a seat is on its way ignores the seat', async () => {
  const { client, sockets } = scripted([{}]);
  client.tick(undefined);
  client.leave();
  await settle();
  client.tick(undefined);
  assert.equal(sockets.length, 0);
  assert.equal(client.state.kind, 'left');
});

test('Matchmaker.joinOrCreateSession asks the fake matchmaker with the options and joins the seat it gives', async () => {
  const fake = await startFakeMatchmaker(() => ({ status: 200, body: seatAnswer() }));
  try {
    /** @type {FakeSocket[]} */
    const sockets = [];
    const client = new Matchmaker(fake.url).joinOrCreateSession(game, 'arena', { name: 'ada' }, {
      storage: null, openSocket: (url, protocol) => { const socket = new FakeSocket(url, protocol); sockets.push(socket); return socket; },
    });
    client.tick(undefined);
    for (let turn = 0; turn < 100 && sockets.length === 0; turn += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      client.tick(undefined);
    }
    assert.equal(fake.requests[0].url, '/matchmake/joinOrCreate/arena');
    assert.deepEqual(JSON.parse(fake.requests[0].body), { name: 'ada' });
    assert.equal(sockets[0].url, 'ws://127.0.0.1:7777/red');
    assert.equal(sockets[0].protocol, 'tickwire.v1');
  } finally {
    await fake.close();
  }
});
