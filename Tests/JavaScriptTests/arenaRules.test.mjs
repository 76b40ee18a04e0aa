// The JavaScript movement port against Swift: replays every seeded input script of
// Tests/ArenaGameTests/Fixtures/trajectories.json (written by ArenaTrajectoryFixtureTests.swift)
// and must reach the same quantized x, y and heading after every tick.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hex, root } from '../../Clients/javascript/test/vectors.mjs';
// The arena's modules import `@tickwire/client` by name, as the page's import map resolves it in a
// browser; resolveClient.mjs teaches Node the same, for the imports that follow it.
import '../../Sources/ArenaGame/Web/node/resolveClient.mjs';

const { ArenaMap, ArenaRules, decodeInput, encodeInput, movePlayer } = await import('../../Sources/ArenaGame/Web/arena/arenaRules.js');
const { PlayerField, arenaSchema } = await import('../../Sources/ArenaGame/Web/arena/arenaSchema.js');

const fixture = JSON.parse(readFileSync(join(root, 'Tests', 'ArenaGameTests', 'Fixtures', 'trajectories.json'), 'utf8'));
const fields = arenaSchema.entityTypes[0].fields;
const xKind = fields[PlayerField.x].kind, yKind = fields[PlayerField.y].kind, headingKind = fields[PlayerField.heading].kind;

test('the JavaScript arena schema is Swift\'s: same canonical encoding and fingerprint', () => {
  assert.equal(hex(arenaSchema.canonicalEncoding()).replaceAll(' ', ''), fixture.schemaCanonicalEncoding);
  assert.equal(arenaSchema.fingerprint.toString(16), fixture.schemaFingerprint);
});

test('the map and the rules\' constants are Swift\'s', () => {
  assert.deepEqual(ArenaMap.standard.rows, fixture.map);
  assert.equal(ArenaRules.defaultTickRate, fixture.tickRate);
  assert.equal(ArenaRules.playerSpeed, fixture.playerSpeed);
  assert.equal(ArenaRules.playerRadius, fixture.playerRadius);
});

for (const script of fixture.scripts) {
  test(`script ${script.seed}: ${script.positions.length} ticks reach Swift's quantized positions`, () => {
    const player = { x: xKind.dequantize(script.start[0]), y: yKind.dequantize(script.start[1]), heading: 0, health: 100 };
    const dt = 1 / fixture.tickRate;
    script.inputs.forEach((/** @type {number} */ byte, /** @type {number} */ tick) => {
      const input = decodeInput(Uint8Array.of(byte));
      assert.equal(encodeInput(input)[0], byte, `tick ${tick}: the input byte round-trips`);
      movePlayer(player, input, dt, ArenaMap.standard);
      const got = [xKind.quantize(player.x), yKind.quantize(player.y), headingKind.quantize(player.heading)];
      assert.deepEqual(got, script.positions[tick], `tick ${tick} (input ${byte}): JavaScript at ${got}, Swift at ${script.positions[tick]}`);
    });
  });
}

test('malformed input bytes decode as idle, as in Swift', () => {
  for (const bytes of [Uint8Array.of(0x03), Uint8Array.of(0x0c), Uint8Array.of(0x40), Uint8Array.of(1, 1), new Uint8Array(0)]) {
    assert.deepEqual(decodeInput(bytes), { moveX: 0, moveY: 0, fires: false, firesRail: false });
  }
});

test('the rail is bit 5 of the input byte, as ArenaInput.encoded writes it', () => {
  const rail = { moveX: 0, moveY: 0, fires: false, firesRail: true };
  assert.deepEqual(encodeInput(rail), Uint8Array.of(0x25));
  assert.deepEqual(decodeInput(Uint8Array.of(0x25)), rail);
});
