// A fake matchmaker for the tests: a node:http server on 127.0.0.1 (port 0) that answers each
// request from the test's table of contract answers (Protocol/MATCHMAKER.md) and records what it got.
import { createServer } from 'node:http';
import { readVector } from './vectors.mjs';

/**
 * @typedef {{status: number, body?: unknown, text?: string, headers?: Record<string, string>, hang?: boolean}} FakeAnswer
 *   `body` is sent as JSON, `text` as it is; `hang` never answers.
 * @typedef {{method: string, url: string, headers: import('node:http').IncomingHttpHeaders, body: string}} FakeRequest
 */

/** The 2048-byte token of vectors/tokens/token-01-connect-token.hex. */
export const vectorToken = readVector('tokens/token-01-connect-token.hex').bytes;
/** The 1056 bytes of the hello in vectors/frame-hello-connect-token.hex that are its connect token (after type, version, fingerprint, modes, flags and the room "red"). */
export const vectorHelloToken = readVector('frame-hello-connect-token.hex').frames[0].slice(17, 17 + 1056);

/** @param {Uint8Array} bytes */
export const hexOf = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * A seat as section 2 shows it, with the vectors' tokens.
 * @param {Record<string, unknown>} [fields] Members over the defaults.
 */
export function seatAnswer(fields = {}) {
  return {
    room: 'red', mode: 'arena', isNewRoom: true,
    urls: { ws: 'ws://127.0.0.1:7777/red', udp: 'udp://127.0.0.1:7778/red' },
    token: hexOf(vectorToken), helloToken: hexOf(vectorHelloToken), expiresIn: 30,
    userId: '9223372036854775809', displayName: 'ada#1', ...fields,
  };
}

/**
 * Starts a fake matchmaker.
 * @param {(request: FakeRequest) => FakeAnswer} answer
 * @returns {Promise<{url: string, requests: FakeRequest[], close: () => Promise<void>}>}
 */
export async function startFakeMatchmaker(answer) {
  /** @type {FakeRequest[]} */
  const requests = [];
  /** @type {Set<import('node:http').ServerResponse>} */
  const hanging = new Set();
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk) => { body += chunk; });
    incoming.on('end', () => {
      const request = { method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers, body };
      requests.push(request);
      const reply = answer(request);
      if (reply.hang) {
        hanging.add(response);
        return;
      }
      const text = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
      response.writeHead(reply.status, {
        'Content-Type': reply.text === undefined ? 'application/json' : 'text/plain; charset=utf-8',
        'Access-Control-Allow-Origin': '*', 'Connection': 'close', ...reply.headers,
      });
      response.end(text);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}/`,
    requests,
    close: () => new Promise((resolve) => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections?.();
      server.close(() => resolve(undefined));
    }),
  };
}
