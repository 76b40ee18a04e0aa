// The keys a player holds, from the browser's keydown and keyup events: WASD or the arrows
// move, space (or f) fires, e fires the rail, as in the terminal (HeldKeys.swift, which has only presses to go by).

/** @typedef {import('./arenaRules.js').ArenaInput} ArenaInput */

const moves = Object.freeze({
  KeyW: [0, -1], ArrowUp: [0, -1], KeyS: [0, 1], ArrowDown: [0, 1],
  KeyA: [-1, 0], ArrowLeft: [-1, 0], KeyD: [1, 0], ArrowRight: [1, 0],
});
const fireKeys = new Set(['Space', 'KeyF']);
const railKeys = new Set(['KeyE']);

/**
 * @param {EventTarget | null} target
 * @returns {boolean} Whether keys go to a text field (the name field) rather than the game.
 */
function isTextField(target) {
  return typeof HTMLInputElement !== 'undefined' && target instanceof HTMLInputElement;
}

/** Held keys, read once per tick. */
export class KeyboardInput {
  /** @param {EventTarget} target Where keys are listened for (the window). */
  constructor(target) {
    /** @type {Set<string>} */
    this.held = new Set();
    /** Whether fire was pressed since the last tick (a tap shorter than a tick still fires). */
    this.firePressed = false;
    /** Whether the rail was pressed since the last tick. */
    this.railPressed = false;
    /** @type {(key: string) => void} Called with `n`, `q`, … for keys that are not moves. */
    this.onKey = () => {};
    target.addEventListener('keydown', (/** @type {any} */ event) => {
      if (isTextField(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.code in moves || fireKeys.has(event.code) || railKeys.has(event.code)) {
        event.preventDefault();
        this.held.add(event.code);
        if (fireKeys.has(event.code)) this.firePressed = true;
        if (railKeys.has(event.code)) this.railPressed = true;
      } else if (!event.repeat) {
        this.onKey(event.key.toLowerCase());
      }
    });
    target.addEventListener('keyup', (/** @type {any} */ event) => this.held.delete(event.code));
    target.addEventListener('blur', () => this.held.clear());
  }

  /** @returns {ArenaInput} The input held now, without consuming a fire press. */
  peek() {
    let moveX = 0, moveY = 0;
    for (const code of this.held) {
      const move = /** @type {Record<string, number[]>} */ (moves)[code];
      if (move) {
        moveX += move[0];
        moveY += move[1];
      }
    }
    const fires = this.firePressed || [...fireKeys].some((code) => this.held.has(code));
    const firesRail = this.railPressed || [...railKeys].some((code) => this.held.has(code));
    return { moveX: Math.sign(moveX), moveY: Math.sign(moveY), fires, firesRail };
  }

  /** @returns {ArenaInput} This tick's input; a fire press counts once. */
  input() {
    const input = this.peek();
    this.firePressed = false;
    this.railPressed = false;
    return input;
  }
}
