// What the page needs between the Tickwire session and the canvas: players, bullets and rail traces read
// from a world view (ArenaSchema.player(from:) in Swift), the prediction adapter for the local
// player (Arena.restore and ArenaRules.move), and the name as the hello's payload (ArenaClient).
import { ArenaMap, movePlayer } from './arenaRules.js';
import { ArenaType, PlayerField, RailField } from './arenaSchema.js';

/** @typedef {import('@tickwire/client').EntityView} EntityView */
/** @typedef {import('@tickwire/client').WorldView} WorldView */
/** @typedef {import('@tickwire/client').Snapshot} Snapshot */
/** @typedef {import('./arenaRules.js').ArenaInput} ArenaInput */

/**
 * A player as drawn.
 * @typedef {{id: number, name: string, x: number, y: number, heading: number, health: number, score: number, isBot: boolean}} ScenePlayer
 */

/**
 * @param {EntityView} entity A player entity.
 * @returns {ScenePlayer}
 */
export function playerFromEntity(entity) {
  const value = (/** @type {number} */ field) => (field < entity.values.length ? entity.values[field] : 0);
  // The name is a text field (protocol 1.2): the view carries its string.
  const name = entity.texts?.[PlayerField.name] ?? '';
  return {
    id: entity.id, name, x: value(PlayerField.x), y: value(PlayerField.y), heading: value(PlayerField.heading),
    health: Math.round(value(PlayerField.health)), score: Math.round(value(PlayerField.score)), isBot: value(PlayerField.isBot) !== 0,
  };
}

/**
 * A rail shot's trace as drawn: from the shooter to what the ray hit.
 * @typedef {{x: number, y: number, endX: number, endY: number}} SceneRail
 */

/**
 * The players, bullets and rail traces of a world view.
 * @param {WorldView | undefined} view
 * @returns {{players: ScenePlayer[], bullets: Array<{x: number, y: number}>, rails: SceneRail[]}}
 */
export function sceneFromView(view) {
  /** @type {ScenePlayer[]} */
  const players = [];
  /** @type {Array<{x: number, y: number}>} */
  const bullets = [];
  /** @type {SceneRail[]} */
  const rails = [];
  for (const entity of view?.entities ?? []) {
    if (entity.typeIndex === ArenaType.player) players.push(playerFromEntity(entity));
    else if (entity.typeIndex === ArenaType.bullet) bullets.push({ x: entity.values[0] ?? 0, y: entity.values[1] ?? 0 });
    else if (entity.typeIndex === ArenaType.rail) {
      const value = (/** @type {number} */ field) => entity.values[field] ?? 0;
      rails.push({ x: value(RailField.x), y: value(RailField.y), endX: value(RailField.endX), endY: value(RailField.endY) });
    }
  }
  return { players, bullets, rails };
}

/**
 * The name as the hello's payload: its UTF-8 bytes, at most 64 (as `ArenaClient` sends it; the
 * server keeps the characters of the name alphabet, at most 10).
 * @param {string} name
 * @returns {Uint8Array}
 */
export function helloPayload(name) {
  return new TextEncoder().encode(name).slice(0, 64);
}

/**
 * The local player's predicted state: its entity's values, dequantized.
 * @typedef {{id: number, x: number, y: number, heading: number, health: number, name: string, values: number[]}} PredictedPlayer
 */

/**
 * The prediction adapter of the session (`GameAdapter.predict`): restores the local player from
 * a snapshot, moves it by the arena's rules, and shows it as an entity.
 * @param {ArenaMap} [map] The map the server plays on.
 */
export function arenaPrediction(map = ArenaMap.standard) {
  return {
    /**
     * @param {Snapshot} snapshot
     * @param {number} clientID
     * @returns {PredictedPlayer | undefined}
     */
    restore(snapshot, clientID) {
      const index = snapshot.indexOf(clientID);
      if (index < 0 || snapshot.types[index] !== ArenaType.player) return undefined;
      const values = snapshot.values[index].map((_, field) => snapshot.double(index, field));
      return {
        id: clientID, x: values[PlayerField.x], y: values[PlayerField.y], heading: values[PlayerField.heading],
        health: Math.round(values[PlayerField.health]), name: snapshot.text(index, PlayerField.name), values,
      };
    },
    /**
     * @param {unknown} state
     * @param {unknown} input
     * @param {number} dt
     * @returns {PredictedPlayer}
     */
    step(state, input, dt) {
      const player = { .../** @type {PredictedPlayer} */ (state) };
      movePlayer(player, /** @type {ArenaInput} */ (input), dt, map);
      return player;
    },
    /**
     * @param {unknown} state
     * @param {number} clientID
     * @returns {EntityView | undefined}
     */
    localEntity(state, clientID) {
      const player = /** @type {PredictedPlayer | undefined} */ (state);
      if (!player || player.id !== clientID) return undefined;
      const values = player.values.slice();
      values[PlayerField.x] = player.x;
      values[PlayerField.y] = player.y;
      values[PlayerField.heading] = player.heading;
      return { id: player.id, typeIndex: ArenaType.player, values, texts: { [PlayerField.name]: player.name } };
    },
  };
}
