// The arena in a web page: joins the room of `?room=` (default `main`) on the server that served
// the page, as the player named by `?name=` (or the name field), ticks the session at the
// server's tick rate with the held keys, and draws every animation frame. When the server has a
// matchmaker (Protocol/MATCHMAKER.md), the name field comes with the arena's open rooms, each with
// a play button (joinById), and quick play (joinOrCreate "arena"; `?play=quick` with `?name=`);
// a server without one answers 404 to /rooms and the page plays as before. `window.__tickwire`
// exposes the page's state for tests (Tools/suites/browser), `window.__tickwireRooms` the list's.
import { Matchmaker, MatchmadeSession, ReconnectPolicy, ReconnectingSession } from '@tickwire/client';
import { ArenaMap, encodeInput } from './arenaRules.js';
import { arenaSchema } from './arenaSchema.js';
import { arenaPrediction, helloPayload, sceneFromView } from './arenaScene.js';
import { drawFrame } from './arenaCanvas.js';
import { matchmakerRefusalExplanation, refusalExplanation, statusText } from './connectionText.js';
import { KeyboardInput } from './keyboardInput.js';
import { NetGraph } from './netGraph.js';
import { RoomList } from './roomList.js';

/** @typedef {import('./roomList.js').RoomChoice | {kind: 'direct'}} Choice How to join: the URL's room, or through the matchmaker. */

const parameters = new URLSearchParams(location.search);
const room = parameters.get('room') || 'main';
/** The WebSocket URL: this page's server (ws: for http:, wss: for https:), or `?server=` for development. */
const url = parameters.get('server') || `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/${encodeURIComponent(room)}`;
const fingerprint = arenaSchema.fingerprint.toString(16).padStart(16, '0');
/** The page's own server's matchmaker; none when `?server=` points the game elsewhere. */
const matchmaker = parameters.get('server') ? undefined : new Matchmaker(location.origin);

const canvas = /** @type {HTMLCanvasElement} */ (document.getElementById('arena'));
const context = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
const form = /** @type {HTMLFormElement} */ (document.getElementById('join'));
const nameField = /** @type {HTMLInputElement} */ (document.getElementById('name'));

/** Sizes the canvas to the window, in device pixels. */
function resize() {
  const scale = window.devicePixelRatio || 1;
  canvas.width = Math.round(window.innerWidth * scale);
  canvas.height = Math.round(window.innerHeight * scale);
  canvas.style.width = `${window.innerWidth}px`;
  canvas.style.height = `${window.innerHeight}px`;
  context.setTransform(scale, 0, 0, scale, 0, 0);
}
window.addEventListener('resize', resize);
resize();

const roomSection = /** @type {HTMLElement} */ (document.getElementById('rooms'));
const roomList = matchmaker ? new RoomList(
  matchmaker, roomSection, /** @type {HTMLElement} */ (document.getElementById('room-list')),
  /** @type {HTMLButtonElement} */ (document.getElementById('quick-play')), (choice) => choose(choice),
) : undefined;
Object.defineProperty(window, '__tickwireRooms', { configurable: true, value: { state: () => roomList?.snapshot() ?? { matchmaker: 'absent', rooms: [], error: undefined, refreshes: 0 } } });

/** @returns {string} The name in the field, or `player`; remembered for the tab. */
function chosenName() {
  const chosen = nameField.value.trim() || 'player';
  sessionStorage.setItem('arena.name', chosen);
  return chosen;
}

/**
 * Leaves the form for the game.
 * @param {Choice} choice
 */
function choose(choice) {
  if (!nameField.reportValidity()) return;
  roomList?.stop();
  form.hidden = true;
  play(chosenName(), choice);
}

const name = parameters.get('name');
if (name) {
  play(name, parameters.get('play') === 'quick' && matchmaker ? { kind: 'quick' } : { kind: 'direct' });
} else {
  form.hidden = false;
  nameField.value = sessionStorage.getItem('arena.name') ?? '';
  nameField.focus();
  roomList?.start();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    choose({ kind: 'direct' });
  });
}

/**
 * Joins and plays until the page closes.
 * @param {string} playerName
 * @param {Choice} choice The URL's room, or a seat from the matchmaker (quick play, or a listed room).
 */
function play(playerName, choice) {
  const game = { schema: arenaSchema, encodeInput, predict: arenaPrediction(ArenaMap.standard) };
  const policy = new ReconnectPolicy({ baseDelay: 0.5, maximumDelay: 8 });
  const configuration = { helloPayload: helloPayload(playerName) };
  const client = !matchmaker || choice.kind === 'direct'
    ? new ReconnectingSession(game, { url, configuration: { ...configuration, room }, policy })
    : choice.kind === 'quick'
      ? matchmaker.joinOrCreateSession(game, 'arena', { name: playerName }, { configuration, policy })
      : matchmaker.joinByIdSession(game, choice.room, { name: playerName }, { configuration, policy });
  /** @returns {string} The room played in: the URL's, or the seat's (empty until the matchmaker answers). */
  const currentRoom = () => (client instanceof MatchmadeSession ? (client.seat?.room ?? '') : room);
  const session = client.session;
  const keys = new KeyboardInput(window);
  const netGraph = new NetGraph();
  let showsNetGraph = false;
  let framesDrawn = 0;
  /** @type {ReturnType<typeof sceneFromView>} */
  let scene = { players: [], bullets: [], rails: [] };

  keys.onKey = (key) => {
    if (key === 'n') showsNetGraph = !showsNetGraph;
    if (key === 'q') client.leave();
  };

  // Ticks at the server's rate (20 Hz until the welcome says otherwise), catching up at most one tick.
  let nextTick = performance.now();
  const tick = () => {
    const period = 1000 / Math.max(session.tickRate, 1);
    const now = performance.now();
    nextTick = Math.max(nextTick + period, now - period);
    client.tick(keys.input());
    netGraph.sample(session, now / 1000);
    setTimeout(tick, Math.max(0, nextTick - performance.now()));
  };
  tick();

  /** @returns {string} What to show over the map, if anything. */
  const message = () => {
    const state = client.state;
    if (state.kind === 'refused') return refusalExplanation(state.reason, state.text, fingerprint);
    if (state.kind === 'matchmakerRefused') return matchmakerRefusalExplanation(state.code, state.reason);
    if (state.kind === 'kicked') return state.text ? `The server removed you from the arena: ${state.text}` : 'The server removed you from the arena.';
    if (state.kind === 'left') return client.hasGivenUp ? `Gave up reconnecting: ${client.lastFailure ?? ''}` : 'You left the arena. Reload the page to play again.';
    if (state.kind !== 'connected' && client.lastFailure) return `Connection lost: ${client.lastFailure}`;
    return '';
  };

  const draw = () => {
    scene = sceneFromView(client.render());
    const state = client.state;
    drawFrame(context, {
      map: ArenaMap.standard, players: scene.players, bullets: scene.bullets, rails: scene.rails, localID: session.clientID, room: currentRoom(),
      status: statusText(state, session.clock(), client.hasGivenUp), isConnected: state.kind === 'connected', message: message(),
      netGraph: showsNetGraph ? netGraph.lines(session, client) : undefined,
    }, window.innerWidth, window.innerHeight);
    framesDrawn += 1;
    requestAnimationFrame(draw);
  };
  requestAnimationFrame(draw);

  // For tests and the curious: the page's state as plain data.
  Object.defineProperty(window, '__tickwire', {
    configurable: true,
    value: {
      state: () => ({
        name: playerName, room: currentRoom(), url: client instanceof MatchmadeSession ? client.seatURL : url, fingerprint, connection: client.state,
        matchmade: client instanceof MatchmadeSession, seatName: client instanceof MatchmadeSession ? client.seat?.displayName : undefined, status: statusText(client.state, session.clock(), client.hasGivenUp),
        message: message(), clientID: session.clientID, resumed: session.wasResumed, reconnects: client.reconnects,
        players: scene.players, bullets: scene.bullets.length, framesDrawn, showsNetGraph,
        bytesIn: session.metrics.bytesIn, bytesOut: session.metrics.bytesOut, snapshotsReceived: session.metrics.snapshotsReceived,
        snapshotsUndecodable: session.metrics.snapshotsUndecodable, deltaCoding: session.deltaCoding,
        lastFailure: client.lastFailure, lastDecodeError: session.lastDecodeError?.message, closeReason: session.closeReason,
        input: keys.peek(),
      }),
    },
  });
}
