// The page's modules that need no browser: players and bullets read from a world view, the
// prediction adapter, the hello payload, held keys, the net graph's rates and the connection texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
// The arena's modules import `@tickwire/client` by name, as the page's import map resolves it in a
// browser; resolveClient.mjs teaches Node the same, for the imports that follow it.
import '../../Sources/ArenaGame/Web/node/resolveClient.mjs';

const { ArenaMap, ArenaRules } = await import('../../Sources/ArenaGame/Web/arena/arenaRules.js');
const { ArenaType, PlayerField, arenaSchema } = await import('../../Sources/ArenaGame/Web/arena/arenaSchema.js');
const { arenaPrediction, helloPayload, playerFromEntity, sceneFromView } = await import('../../Sources/ArenaGame/Web/arena/arenaScene.js');
const { refusalExplanation, statusText } = await import('../../Sources/ArenaGame/Web/arena/connectionText.js');
const { KeyboardInput } = await import('../../Sources/ArenaGame/Web/arena/keyboardInput.js');
const { NetGraph } = await import('../../Sources/ArenaGame/Web/arena/netGraph.js');
const { RejectReason, Snapshot } = await import('@tickwire/client');

const playerFields = arenaSchema.entityTypes[ArenaType.player].fields;

/** A player's quantized values: position, heading, health, score, bot flag and name. */
function playerValues({ x, y, heading = 0, health = 100, score = 0, isBot = false, name = '' }) {
  const values = new Array(playerFields.length).fill(0);
  values[PlayerField.x] = playerFields[PlayerField.x].kind.quantize(x);
  values[PlayerField.y] = playerFields[PlayerField.y].kind.quantize(y);
  values[PlayerField.heading] = playerFields[PlayerField.heading].kind.quantize(heading);
  values[PlayerField.health] = health;
  values[PlayerField.score] = score;
  values[PlayerField.isBot] = isBot ? 1 : 0;
  values[PlayerField.name] = new TextEncoder().encode(name);   // a text field (protocol 1.2) holds its bytes
  return values;
}

test('players are read from entities with their names, as ArenaSchema.player(from:) reads them', () => {
  const view = {
    time: 0, isExtrapolated: false,
    entities: [
      { id: 3, typeIndex: ArenaType.player, values: [10.5, 4.25, 1.5, 75, 2, 0, 0], texts: { [PlayerField.name]: 'ann' } },
      { id: 1073741824, typeIndex: ArenaType.player, values: [1, 2, 0, 100, 0, 1, 0], texts: { [PlayerField.name]: 'Zoë' } },
      { id: 9, typeIndex: ArenaType.bullet, values: [5, 6] },
    ],
  };
  const scene = sceneFromView(view);
  assert.deepEqual(scene.players[0], { id: 3, name: 'ann', x: 10.5, y: 4.25, heading: 1.5, health: 75, score: 2, isBot: false });
  assert.equal(scene.players[1].name, 'Zoë', 'a name is the text field\'s string, in any script');
  assert.equal(scene.players[1].isBot, true);
  assert.deepEqual(scene.bullets, [{ x: 5, y: 6 }]);
  assert.deepEqual(sceneFromView(undefined), { players: [], bullets: [], rails: [] });
  const railView = { time: 0, isExtrapolated: false, entities: [{ id: 0x80000001, typeIndex: 2, values: [1.5, 2.5, 9.5, 2.5] }] };
  assert.deepEqual(sceneFromView(railView).rails, [{ x: 1.5, y: 2.5, endX: 9.5, endY: 2.5 }], 'a rail entity is a trace from the shooter to its end');
  assert.equal(playerFromEntity({ id: 1, typeIndex: 0, values: [] }).name, '', 'missing values read as 0');
});

test('the hello payload is the name in UTF-8, at most 64 bytes, as ArenaClient sends it', () => {
  assert.deepEqual([...helloPayload('ann')], [0x61, 0x6e, 0x6e]);
  assert.deepEqual([...helloPayload('é')], [0xc3, 0xa9]);
  assert.equal(helloPayload('x'.repeat(64)).length, 64);
  assert.equal(helloPayload('x'.repeat(65)).length, 64);
});

test('the prediction adapter restores the local player, moves it by the rules, stops at walls, and shows it as an entity', () => {
  const snapshot = new Snapshot(arenaSchema, 7);
  snapshot.append(1, ArenaType.player, playerValues({ x: 1.5, y: 1.5, name: 'me' }));
  snapshot.append(2, ArenaType.player, playerValues({ x: 5.5, y: 1.5 }));
  const predict = arenaPrediction(ArenaMap.standard);
  assert.equal(predict.restore(snapshot, 99), undefined, 'no entity: nothing to predict');
  const state = predict.restore(snapshot, 1);
  assert.equal(state?.x, 1.5);
  const dt = 1 / 30;
  const moved = predict.step(state, { moveX: 1, moveY: 0, fires: false }, dt);
  assert.ok(Math.abs(moved.x - (1.5 + ArenaRules.playerSpeed * dt)) < 1e-9);
  assert.equal(state?.x, 1.5, 'step does not change the state it is given');
  const blocked = predict.step(state, { moveX: -1, moveY: 0, fires: false }, dt);
  assert.ok(Math.abs(blocked.x - 1.5) < 1e-9, 'the wall at column 0 stops it');
  assert.equal(blocked.heading, Math.PI, 'but it turns');
  const entity = predict.localEntity(moved, 1);
  assert.equal(entity?.typeIndex, ArenaType.player);
  assert.equal(entity?.values[PlayerField.x], moved.x);
  assert.equal(playerFromEntity(/** @type {any} */ (entity)).name, 'me');
  assert.equal(predict.localEntity(moved, 2), undefined);
  const dead = predict.restore((() => { const s = new Snapshot(arenaSchema, 8); s.append(1, 0, playerValues({ x: 1.5, y: 1.5, health: 0 })); return s; })(), 1);
  assert.equal(predict.step(dead, { moveX: 1, moveY: 0, fires: false }, dt).x, 1.5, 'a dead player does not move');
});

test('held keys: WASD and arrows combine into one direction, a tap of space fires once, ctrl combinations and auto-repeats are not the game\'s', () => {
  const target = new EventTarget();
  const keys = new KeyboardInput(target);
  const press = (type, code, key = '', extra = {}) => target.dispatchEvent(Object.assign(new Event(type), { code, key, repeat: false, ...extra }));
  /** @type {string[]} */
  const other = [];
  keys.onKey = (key) => other.push(key);
  press('keydown', 'KeyW');
  press('keydown', 'ArrowRight');
  assert.deepEqual(keys.input(), { moveX: 1, moveY: -1, fires: false, firesRail: false });
  press('keydown', 'KeyA');
  assert.deepEqual(keys.input(), { moveX: 0, moveY: -1, fires: false, firesRail: false }, 'left and right cancel');
  press('keyup', 'KeyW');
  press('keyup', 'KeyA');
  press('keyup', 'ArrowRight');
  press('keydown', 'Space');
  press('keyup', 'Space');
  assert.deepEqual(keys.input(), { moveX: 0, moveY: 0, fires: true, firesRail: false }, 'a tap between two ticks fires');
  assert.deepEqual(keys.input(), { moveX: 0, moveY: 0, fires: false, firesRail: false }, 'once');
  press('keydown', 'KeyN', 'n');
  press('keydown', 'KeyN', 'n', { repeat: true });
  press('keydown', 'KeyS', 's', { ctrlKey: true });
  assert.deepEqual(other, ['n'], 'n once (no auto-repeat); ctrl+s is the browser\'s');
  assert.deepEqual(keys.input(), { moveX: 0, moveY: 0, fires: false, firesRail: false });
  press('keydown', 'KeyD');
  target.dispatchEvent(new Event('blur'));
  assert.deepEqual(keys.input(), { moveX: 0, moveY: 0, fires: false, firesRail: false }, 'losing focus lets go of every key');
});

test('the net graph measures bytes per second over the last second', () => {
  const graph = new NetGraph();
  const session = { metrics: { bytesIn: 0, bytesOut: 0 } };
  for (let tick = 0; tick <= 90; tick++) {
    session.metrics.bytesIn = tick * 100;
    session.metrics.bytesOut = tick * 10;
    graph.sample(/** @type {any} */ (session), tick / 30);
  }
  assert.ok(Math.abs(graph.rates.bytesIn - 3000) < 1e-6, `${graph.rates.bytesIn}`);
  assert.ok(Math.abs(graph.rates.bytesOut - 300) < 1e-6);
  assert.ok(graph.samples.length <= 32, 'about a second of samples is kept');
  assert.deepEqual(new NetGraph().rates, { bytesIn: 0, bytesOut: 0 });
});

test('the connection in words, as the terminal shows it, and refusals explained', () => {
  assert.equal(statusText({ kind: 'connecting', attempt: 1 }, 0, false), 'connecting…');
  assert.equal(statusText({ kind: 'connecting', attempt: 3 }, 0, false), 'connecting (attempt 3)…');
  assert.equal(statusText({ kind: 'connected', resumed: true }, 0, false), 'connected (resumed)');
  assert.equal(statusText({ kind: 'waitingToReconnect', attempt: 2, at: 12.04 }, 10, false), 'reconnecting in 2.0 s (attempt 2)');
  assert.equal(statusText({ kind: 'refused', reason: RejectReason.roomFull, text: 'full' }, 0, false), 'refused: room full: full');
  assert.equal(statusText({ kind: 'kicked', text: 'cheating' }, 0, false), 'kicked: cheating', 'as ArenaClient.statusText says it');
  assert.equal(statusText({ kind: 'left' }, 0, true), 'gave up reconnecting');
  assert.match(refusalExplanation(RejectReason.schemaMismatch, 'other', 'abc'), /another game.*schema abc.*“other”/);
  assert.match(refusalExplanation(RejectReason.versionMismatch, '', 'abc'), /another version of the Tickwire protocol than this page \(version 1\)/);
  assert.match(refusalExplanation(RejectReason.unknownRoom, '', 'abc'), /no such room/);
  assert.match(refusalExplanation(RejectReason.invalidHello, 'bad', 'abc'), /invalid hello.*“bad”/);
});
