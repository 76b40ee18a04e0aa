// The matchmaker client (matchmaker.js) against a fake matchmaker (node:http on 127.0.0.1) that
// answers as Protocol/MATCHMAKER.md says: the requests it sends (paths, bodies, the bearer token),
// the seats and listings it reads (the tokens of the vectors, a user id past 2^53), every refusal of
// section 4 with its status, code and words, and what it does when no answer or a wrong one comes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MatchmakerError } from '../errors.js';
import { encodeFrame } from '../frameDecoder.js';
import { Matchmaker, MatchmakerLimits, helloConnectToken } from '../matchmaker.js';
import { readVector } from './vectors.mjs';
import { hexOf, seatAnswer, startFakeMatchmaker, vectorHelloToken, vectorToken } from './fakeMatchmaker.mjs';

/**
 * Runs `body` with a fake matchmaker answering from `answer`, and closes it after.
 * @param {(request: import('./fakeMatchmaker.mjs').FakeRequest) => import('./fakeMatchmaker.mjs').FakeAnswer} answer
 * @param {(fake: Awaited<ReturnType<typeof startFakeMatchmaker>>) => Promise<void>} body
 */
async function withFake(answer, body) {
  const fake = await startFakeMatchmaker(answer);
  try {
    await body(fake);
  } finally {
    await fake.close();
  }
}

test('joinOrCreate posts the options as JSON to /matchmake/joinOrCreate/{mode} and reads the seat of section 2', async () => {
  await withFake(() => ({ status: 200, body: seatAnswer() }), async (fake) => {
    const seat = await new Matchmaker(fake.url).joinOrCreate('arena', { name: 'ada' });
    const [request] = fake.requests;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/matchmake/joinOrCreate/arena');
    assert.deepEqual(JSON.parse(request.body), { name: 'ada' });
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers.authorization, undefined, 'a guest sends no Authorization');
    assert.equal(seat.room, 'red');
    assert.equal(seat.mode, 'arena');
    assert.equal(seat.isNewRoom, true);
    assert.deepEqual(seat.urls, { ws: 'ws://127.0.0.1:7777/red', udp: 'udp://127.0.0.1:7778/red' });
    assert.deepEqual(seat.token, vectorToken, 'token: the 2048 bytes of vectors/tokens/token-01');
    assert.deepEqual(seat.helloTokenBytes, vectorHelloToken);
    assert.equal(seat.expiresIn, 30);
    assert.equal(seat.userId, 2n ** 63n + 1n, 'the user id keeps every bit past 2^53');
    assert.equal(seat.displayName, 'ada#1');
  });
});

test('a seat\'s hello token is the same token as its netcode.io token: expire timestamp, nonce and private part', async () => {
  await withFake(() => ({ status: 200, body: seatAnswer() }), async (fake) => {
    const seat = await new Matchmaker(fake.url).joinOrCreate('arena');
    const view = new DataView(vectorToken.buffer, vectorToken.byteOffset, vectorToken.byteLength);
    // NETCODE.md: version info (13), protocol id (8), create (8), expire (8, little-endian), nonce (24), private part (1024).
    assert.equal(seat.helloToken.expireTimestamp, view.getBigUint64(29, true));
    assert.equal(seat.helloToken.expireTimestamp, 1800000060n);
    assert.deepEqual(seat.helloToken.nonce, vectorToken.slice(37, 61));
    assert.deepEqual(seat.helloToken.encryptedPrivateData, vectorToken.slice(61, 1085));
  });
});

test('a hello carrying a seat\'s hello token encodes to vectors/frame-hello-connect-token.hex byte for byte (PROTOCOL.md 5.3.1)', async () => {
  await withFake(() => ({ status: 200, body: seatAnswer() }), async (fake) => {
    const seat = await new Matchmaker(fake.url).joinOrCreate('arena');
    const frame = encodeFrame({
      type: 'hello', protocolVersion: 1, schemaFingerprint: 0x0123456789abcdefn, compressionModes: 3, room: seat.room,
      resumeToken: undefined, connectToken: seat.helloToken, payload: new TextEncoder().encode('ada'),
    });
    assert.equal(hexOf(frame), hexOf(readVector('frame-hello-connect-token.hex').frames[0]));
  });
});

test('join, create (private) and joinById go to their paths; a bearer token, given or asked for, is sent as Authorization', async () => {
  await withFake(() => ({ status: 200, body: seatAnswer() }), async (fake) => {
    await new Matchmaker(fake.url, { bearerToken: 'header.claims.signature' }).join('arena');
    let asked = 0;
    const refreshing = new Matchmaker(fake.url, { bearerToken: async () => `fresh-${++asked}` });
    await refreshing.create('duel-2', { private: true, name: 'bo', level: 3 });
    await refreshing.joinById('duel-2-0a1b');
    const [join, create, byId] = fake.requests;
    assert.equal(join.url, '/matchmake/join/arena');
    assert.equal(join.body, '{}', 'no options: an empty object');
    assert.equal(join.headers.authorization, 'Bearer header.claims.signature');
    assert.equal(create.url, '/matchmake/create/duel-2');
    assert.deepEqual(JSON.parse(create.body), { private: true, name: 'bo', level: 3 }, 'other options reach the game\'s hook untouched');
    assert.equal(create.headers.authorization, 'Bearer fresh-1');
    assert.equal(byId.url, '/matchmake/joinById/duel-2-0a1b');
    assert.equal(byId.headers.authorization, 'Bearer fresh-2', 'the function is asked before each request');
  });
});

test('a base URL with a path keeps it; a name is sent percent-encoded, never as a path of its own', async () => {
  await withFake(() => ({ status: 404, body: { error: 'unknownMode', reason: 'no such mode' } }), async (fake) => {
    const matchmaker = new Matchmaker(`${fake.url}api`);
    await assert.rejects(matchmaker.joinOrCreate('../rooms'), MatchmakerError);
    await assert.rejects(matchmaker.rooms('a b'), MatchmakerError);
    assert.deepEqual(fake.requests.map((request) => request.url), ['/api/matchmake/joinOrCreate/..%2Frooms', '/api/rooms?mode=a+b']);
  });
});

test('rooms() reads the listings of section 3, of every mode or of one', async () => {
  const listing = { room: 'arena-0a1b2c3d', mode: 'arena', clients: 3, capacity: 16, metadata: { map: 'dust' } };
  await withFake((request) => ({ status: 200, body: { rooms: request.url === '/rooms' ? [listing, { ...listing, room: 'x', clients: 1 }] : [] } }), async (fake) => {
    const matchmaker = new Matchmaker(fake.url);
    assert.deepEqual(await matchmaker.rooms(), [listing, { ...listing, room: 'x', clients: 1 }]);
    assert.deepEqual(await matchmaker.rooms('duel'), []);
    assert.deepEqual(fake.requests.map((request) => `${request.method} ${request.url}`), ['GET /rooms', 'GET /rooms?mode=duel']);
    assert.equal(fake.requests[0].body, '', 'a GET has no body');
  });
});

/** Every refusal of MATCHMAKER.md section 4: status, code, whether asking again later may succeed. */
const refusals = [
  [400, 'badRequest', false], [401, 'unauthorized', false], [403, 'forbidden', false], [404, 'notFound', false],
  [404, 'unknownMode', false], [404, 'noOpenRoom', false], [404, 'unknownRoom', false], [405, 'methodNotAllowed', false],
  [409, 'roomFull', false], [409, 'roomLocked', false], [411, 'lengthRequired', false], [413, 'bodyTooLarge', false],
  [429, 'tooManyRequests', true], [503, 'noLiveProcess', true], [503, 'unavailable', true],
];

test('every refusal of section 4 throws a MatchmakerError with its status, code and reason', async () => {
  for (const [status, code, retryable] of refusals) {
    const reason = `the words for ${code}`;
    await withFake(() => ({ status: /** @type {number} */ (status), body: { error: code, reason } }), async (fake) => {
      const error = await new Matchmaker(fake.url).joinById('room-1').then(() => undefined, (thrown) => thrown);
      assert.ok(error instanceof MatchmakerError, `${status} ${code}: a MatchmakerError, not ${error}`);
      assert.equal(error.status, status);
      assert.equal(error.code, code);
      assert.equal(error.kind, code);
      assert.equal(error.reason, reason);
      assert.equal(error.isRetryable, retryable, `${code}: retryable ${retryable}`);
      assert.match(error.message, new RegExp(`${status} ${code}.*${reason}`));
    });
  }
});

test('429 carries Retry-After as retryAfter; a refusal of rooms() is thrown the same way', async () => {
  await withFake(() => ({
    status: 429, body: { error: 'tooManyRequests', reason: 'slow down' },
    headers: { 'Retry-After': '7', 'Tickwire-Refusal': 'address_matchmaker_rate_limit; limit=20' },
  }), async (fake) => {
    const error = await new Matchmaker(fake.url).rooms().then(() => undefined, (thrown) => thrown);
    assert.ok(error instanceof MatchmakerError);
    assert.equal(error.retryAfter, 7);
    assert.equal(error.code, 'tooManyRequests');
  });
});

test('a refusal whose body is plain text (the HTTP layer\'s own 411 or 413) is judged by its status', async () => {
  for (const [status, code] of [[411, 'lengthRequired'], [413, 'bodyTooLarge'], [502, 'http502']]) {
    await withFake(() => ({ status: /** @type {number} */ (status), text: 'plain words\n' }), async (fake) => {
      const error = await new Matchmaker(fake.url).joinOrCreate('arena').then(() => undefined, (thrown) => thrown);
      assert.ok(error instanceof MatchmakerError);
      assert.equal(error.code, code);
      assert.equal(error.reason, 'plain words');
    });
  }
});

test('options over 4096 bytes of JSON are refused before anything is sent, naming the limit', async () => {
  await withFake(() => ({ status: 200, body: seatAnswer() }), async (fake) => {
    const name = 'x'.repeat(MatchmakerLimits.maximumBodyBytes);
    const error = await new Matchmaker(fake.url).joinOrCreate('arena', { name }).then(() => undefined, (thrown) => thrown);
    assert.ok(error instanceof MatchmakerError);
    assert.equal(error.code, 'bodyTooLarge');
    assert.match(error.reason, /4096/);
    assert.equal(fake.requests.length, 0);
  });
});

test('no server, or no answer within the timeout, is MatchmakerError unreachable (status 0, retryable)', async () => {
  const fake = await startFakeMatchmaker(() => ({ status: 200, hang: true }));
  const slow = await new Matchmaker(fake.url, { timeout: 0.2 }).joinOrCreate('arena').then(() => undefined, (thrown) => thrown);
  await fake.close();
  assert.ok(slow instanceof MatchmakerError);
  assert.equal(slow.status, 0);
  assert.equal(slow.code, 'unreachable');
  assert.match(slow.reason, /no answer within 0.2 s/);
  assert.ok(slow.isRetryable);
  const closed = await new Matchmaker(fake.url).joinOrCreate('arena').then(() => undefined, (thrown) => thrown);
  assert.ok(closed instanceof MatchmakerError, 'the fake is closed now: nothing listens');
  assert.equal(closed.code, 'unreachable');
});

test('a 200 that is not a seat or a listing is malformedAnswer, naming what is wrong', async () => {
  const cases = [
    [{ text: 'not json' }, /not JSON/],
    [{ body: seatAnswer({ helloToken: 'ab' }) }, /helloToken is not 2112 hexadecimal digits/],
    [{ body: seatAnswer({ token: hexOf(vectorToken).slice(2) }) }, /token is not 4096 hexadecimal digits/],
    [{ body: seatAnswer({ userId: 42 }) }, /userId is not a string/],
    [{ body: seatAnswer({ userId: '18446744073709551616' }) }, /not a 64-bit decimal number/],
    [{ body: seatAnswer({ urls: {} }) }, /urls name no transport/],
    [{ body: seatAnswer({ expiresIn: 'soon' }) }, /expiresIn/],
  ];
  for (const [answer, words] of cases) {
    await withFake(() => ({ status: 200, ...answer }), async (fake) => {
      const error = await new Matchmaker(fake.url).joinOrCreate('arena').then(() => undefined, (thrown) => thrown);
      assert.ok(error instanceof MatchmakerError, `${JSON.stringify(answer).slice(0, 60)}: ${error}`);
      assert.equal(error.code, 'malformedAnswer');
      assert.match(error.reason, /** @type {RegExp} */ (words));
    });
  }
  await withFake(() => ({ status: 200, body: { rooms: [{ room: 'x', mode: 'arena', clients: 1, capacity: 2, metadata: { map: 1 } }] } }), async (fake) => {
    await assert.rejects(new Matchmaker(fake.url).rooms(), /metadata that is not strings/);
  });
});

test('helloConnectToken splits 1056 bytes (big-endian expire timestamp) and refuses any other length', () => {
  const parts = helloConnectToken(vectorHelloToken);
  assert.equal(parts.expireTimestamp, 1800000060n);
  assert.deepEqual(parts.nonce, Uint8Array.from({ length: 24 }, (_, index) => 0x40 + index));
  assert.equal(parts.encryptedPrivateData.length, 1024);
  assert.throws(() => helloConnectToken(vectorHelloToken.slice(1)), /1056 bytes, not 1055/);
});
