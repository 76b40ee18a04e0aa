// The arena's movement rules, ported from Sources/ArenaGame/Game/ArenaRules.swift, ArenaMap.swift
// and ArenaInput.swift: what a browser needs to predict its own player (movement, collision
// with walls) and to draw the map. Tests/JavaScriptTests/arenaRules.test.mjs replays Swift's
// trajectories (Tests/ArenaGameTests/Fixtures/trajectories.json) to the same quantized positions.

/** The rules' constants; the same values as `ArenaRules` in Swift. */
export const ArenaRules = Object.freeze({
  defaultTickRate: 30,
  playerSpeed: 8.0,
  playerRadius: 0.3,
  bulletSpeed: 28.0,
  bulletLifetime: 1.2,
  bulletDamage: 25,
  maximumHealth: 100,
  fireInterval: 0.3,
  respawnDelay: 2.0,
  maximumNameLength: 10,
});

/** The standard map's layout, row by row: `#` is a wall (`ArenaMap.standard`). */
export const standardLayout = Object.freeze([
  '##########################################################',
  '#                                                        #',
  '#   ####          #                    #          ####   #',
  '#   #             #                    #             #   #',
  '#                 #        ####        #                 #',
  '#        ##                                    ##        #',
  '#        ##           #            #           ##        #',
  '#                     #            #                     #',
  '#   ######            #            #            ######   #',
  '#                          ####                          #',
  '#                          ####                          #',
  '#   ######            #            #            ######   #',
  '#                     #            #                     #',
  '#        ##           #            #           ##        #',
  '#        ##                                    ##        #',
  '#                 #        ####        #                 #',
  '#   #             #                    #             #   #',
  '#   ####          #                    #          ####   #',
  '#                                                        #',
  '##########################################################',
]);

/** A grid of wall cells; outside the grid is wall. */
export class ArenaMap {
  /** @param {ReadonlyArray<string>} layout Rows of the map; `#` is a wall. */
  constructor(layout) {
    /** @type {number} */
    this.height = layout.length;
    /** @type {number} */
    this.width = Math.max(0, ...layout.map((row) => row.length));
    /** @type {Uint8Array} */
    this.walls = new Uint8Array(this.width * this.height);
    layout.forEach((row, rowIndex) => {
      for (let column = 0; column < row.length; column++) if (row[column] === '#') this.walls[rowIndex * this.width + column] = 1;
    });
  }

  /** @type {ArenaMap} The map `arena serve` plays on. */
  static standard = new ArenaMap(standardLayout);

  /**
   * @param {number} column
   * @param {number} row
   * @returns {boolean} Whether the cell is a wall (cells outside the map are).
   */
  isWallCell(column, row) {
    if (column < 0 || column >= this.width || row < 0 || row >= this.height) return true;
    return this.walls[row * this.width + column] === 1;
  }

  /**
   * @param {number} x
   * @param {number} y
   * @returns {boolean} Whether the point lies in a wall.
   */
  isWall(x, y) {
    return this.isWallCell(Math.floor(x), Math.floor(y));
  }

  /**
   * @param {number} x
   * @param {number} y
   * @param {number} radius
   * @returns {boolean} Whether a square of half-size `radius` around the point touches a wall.
   */
  isBlocked(x, y, radius) {
    return this.isWall(x - radius, y - radius) || this.isWall(x + radius, y - radius)
      || this.isWall(x - radius, y + radius) || this.isWall(x + radius, y + radius);
  }

  /** @returns {string[]} The layout, row by row. */
  get rows() {
    return Array.from({ length: this.height }, (_, row) => Array.from({ length: this.width }, (_, column) => (this.isWallCell(column, row) ? '#' : ' ')).join(''));
  }
}

/**
 * A player's input for one tick: a direction (each −1, 0 or 1), the fire button and the rail.
 * @typedef {{moveX: number, moveY: number, fires: boolean, firesRail?: boolean}} ArenaInput
 */

/** @type {ArenaInput} */
export const idleInput = Object.freeze({ moveX: 0, moveY: 0, fires: false, firesRail: false });

/**
 * Encodes an input in the arena's one byte (`ArenaInput.encoded`).
 * @param {ArenaInput} input
 * @returns {Uint8Array}
 */
export function encodeInput(input) {
  const clamp = (/** @type {number} */ value) => Math.min(Math.max(Math.trunc(value), -1), 1);
  return Uint8Array.of((clamp(input.moveX) + 1) | ((clamp(input.moveY) + 1) << 2) | (input.fires ? 0x10 : 0) | (input.firesRail ? 0x20 : 0));
}

/**
 * Decodes the arena's input byte; anything malformed is the idle input, as in Swift.
 * @param {Uint8Array} bytes
 * @returns {ArenaInput}
 */
export function decodeInput(bytes) {
  if (bytes.length !== 1 || (bytes[0] & 0xc0) !== 0 || (bytes[0] & 0x03) === 3 || ((bytes[0] >> 2) & 0x03) === 3) return idleInput;
  return { moveX: (bytes[0] & 0x03) - 1, moveY: ((bytes[0] >> 2) & 0x03) - 1, fires: (bytes[0] & 0x10) !== 0, firesRail: (bytes[0] & 0x20) !== 0 };
}

/**
 * The part of a player movement needs.
 * @typedef {{x: number, y: number, heading: number, health: number}} MovingPlayer
 */

/**
 * Moves a living player one tick by its input, axis by axis, stopping at walls
 * (`ArenaRules.move` in Swift). Changes the player in place.
 * @param {MovingPlayer} player
 * @param {ArenaInput} input
 * @param {number} dt Seconds per tick.
 * @param {ArenaMap} map
 */
export function movePlayer(player, input, dt, map) {
  if (player.health <= 0 || (input.moveX === 0 && input.moveY === 0)) return;
  let dx = input.moveX, dy = input.moveY;
  const length = Math.sqrt(dx * dx + dy * dy);
  dx /= length;
  dy /= length;
  player.heading = Math.atan2(dy, dx);
  const step = ArenaRules.playerSpeed * dt;
  const nextX = player.x + dx * step;
  if (!map.isBlocked(nextX, player.y, ArenaRules.playerRadius)) player.x = nextX;
  const nextY = player.y + dy * step;
  if (!map.isBlocked(player.x, nextY, ArenaRules.playerRadius)) player.y = nextY;
}
