// Draws one frame of the arena on a canvas, as the terminal's ArenaRenderer lays it out: the map
// on the left (walls, rail traces, bullets, players as arrows with names and health bars), the scoreboard on
// the right (or below on a narrow window), status and keys below, the net graph over the map.
import { ArenaRules } from './arenaRules.js';

/** @typedef {import('./arenaScene.js').ScenePlayer} ScenePlayer */
/** @typedef {import('./arenaRules.js').ArenaMap} ArenaMap */

/**
 * Everything one frame shows.
 * @typedef {{
 *   map: ArenaMap, players: ScenePlayer[], bullets: Array<{x: number, y: number}>, rails?: import('./arenaScene.js').SceneRail[],
 *   localID: number | undefined,
 *   room: string, status: string, isConnected: boolean, message: string, netGraph: string[] | undefined,
 * }} Frame
 */

/** Colours of the other players, by id (the terminal's palette); the local player is green. */
const palette = ['#3cc8d8', '#d05ad0', '#e0c030', '#5a7cf0', '#e05050', '#e8e8e8'];
const localColour = '#40d040';
const font = '"DejaVu Sans Mono", Menlo, Consolas, monospace';

/**
 * @param {ScenePlayer} player
 * @param {number | undefined} localID
 * @returns {string}
 */
function colourOf(player, localID) {
  return player.id === localID ? localColour : palette[player.id % palette.length];
}

/**
 * @param {number} health
 * @returns {string}
 */
function healthColour(health) {
  const share = health / ArenaRules.maximumHealth;
  return share > 0.6 ? '#40c040' : share > 0.3 ? '#e0c030' : '#e04040';
}

/**
 * Draws a frame filling the canvas (already sized in device pixels; `scale` is devicePixelRatio).
 * @param {CanvasRenderingContext2D} context
 * @param {Frame} frame
 * @param {number} width CSS pixels.
 * @param {number} height CSS pixels.
 */
export function drawFrame(context, frame, width, height) {
  context.fillStyle = '#101014';
  context.fillRect(0, 0, width, height);
  const map = frame.map;
  const wide = width >= height * 1.3;
  const panel = wide ? Math.min(260, width * 0.25) : 0;
  const footer = 64 + (wide ? 0 : Math.min(220, height * 0.3));
  const tile = Math.max(4, Math.floor(Math.min((width - panel - 24) / map.width, (height - footer - 16) / map.height)));
  const mapWidth = tile * map.width, mapHeight = tile * map.height;
  const left = Math.max(8, Math.floor((width - panel - mapWidth) / 2));
  const top = wide ? Math.max(8, Math.floor((height - footer - mapHeight) / 2)) : 8;

  context.fillStyle = '#1b1b22';
  context.fillRect(left, top, mapWidth, mapHeight);
  context.fillStyle = '#70707a';
  for (let row = 0; row < map.height; row++) {
    for (let column = 0; column < map.width; column++) {
      if (map.isWallCell(column, row)) context.fillRect(left + column * tile, top + row * tile, tile, tile);
    }
  }
  context.strokeStyle = '#60e0f0';
  context.lineWidth = Math.max(2, tile * 0.12);
  for (const rail of frame.rails ?? []) {
    context.beginPath();
    context.moveTo(left + rail.x * tile, top + rail.y * tile);
    context.lineTo(left + rail.endX * tile, top + rail.endY * tile);
    context.stroke();
  }
  context.fillStyle = '#ffe060';
  for (const bullet of frame.bullets) {
    context.beginPath();
    context.arc(left + bullet.x * tile, top + bullet.y * tile, Math.max(2, tile * 0.15), 0, Math.PI * 2);
    context.fill();
  }
  const ordered = frame.players.slice().sort((a, b) => Number(a.id === frame.localID) - Number(b.id === frame.localID) || a.id - b.id);
  for (const player of ordered) drawPlayer(context, player, frame.localID, left + player.x * tile, top + player.y * tile, tile);

  const local = frame.players.find((player) => player.id === frame.localID);
  drawFooter(context, frame, local, left, top + mapHeight + 8, mapWidth);
  if (wide) drawScoreboard(context, frame, left + mapWidth + 16, top, panel - 24);
  else drawScoreboard(context, frame, left, top + mapHeight + 72, mapWidth);
  if (frame.netGraph) drawNetGraph(context, frame.netGraph, left + 8, top + 8);
  if (frame.message) drawMessage(context, frame.message, left, top, mapWidth, mapHeight);
}

/**
 * @param {CanvasRenderingContext2D} context
 * @param {ScenePlayer} player
 * @param {number | undefined} localID
 * @param {number} x Centre, CSS pixels.
 * @param {number} y
 * @param {number} tile
 */
function drawPlayer(context, player, localID, x, y, tile) {
  const colour = colourOf(player, localID);
  const size = tile * 0.55;
  context.save();
  context.translate(x, y);
  if (player.health > 0) {
    context.rotate(player.heading);
    context.fillStyle = colour;
    context.beginPath();
    context.moveTo(size, 0);
    context.lineTo(-size * 0.7, size * 0.65);
    context.lineTo(-size * 0.35, 0);
    context.lineTo(-size * 0.7, -size * 0.65);
    context.closePath();
    context.fill();
    if (player.id === localID) {
      context.strokeStyle = '#ffffff';
      context.lineWidth = 1.5;
      context.stroke();
    }
  } else {
    context.strokeStyle = colour;
    context.lineWidth = 2;
    context.beginPath();
    context.moveTo(-size * 0.5, -size * 0.5);
    context.lineTo(size * 0.5, size * 0.5);
    context.moveTo(size * 0.5, -size * 0.5);
    context.lineTo(-size * 0.5, size * 0.5);
    context.stroke();
  }
  context.restore();
  const barWidth = tile * 1.2;
  context.fillStyle = '#333';
  context.fillRect(x - barWidth / 2, y + size + 2, barWidth, 3);
  context.fillStyle = healthColour(player.health);
  context.fillRect(x - barWidth / 2, y + size + 2, barWidth * Math.max(0, player.health) / ArenaRules.maximumHealth, 3);
  context.font = `${Math.max(9, Math.round(tile * 0.5))}px ${font}`;
  context.textAlign = 'center';
  context.fillStyle = colour;
  context.fillText((player.isBot ? '~' : '') + player.name, x, y - size - 3);
  context.textAlign = 'left';
}

/**
 * @param {CanvasRenderingContext2D} context
 * @param {Frame} frame
 * @param {number} left
 * @param {number} top
 * @param {number} width
 */
function drawScoreboard(context, frame, left, top, width) {
  context.font = `bold 14px ${font}`;
  context.fillStyle = '#e8e8e8';
  context.fillText(`room ${frame.room}`, left, top + 14);
  context.font = `12px ${font}`;
  context.fillStyle = '#909098';
  context.fillText('name          K   hp', left, top + 34);
  const ranked = frame.players.slice().sort((a, b) => b.score - a.score || a.id - b.id);
  ranked.forEach((player, index) => {
    const y = top + 52 + index * 17;
    context.fillStyle = colourOf(player, frame.localID);
    context.fillText(((player.isBot ? '~' : '') + player.name).slice(0, 11).padEnd(12, ' ') + String(player.score).padStart(3, ' '), left, y);
    const barLeft = left + Math.min(width - 44, 130);
    context.fillStyle = '#333';
    context.fillRect(barLeft, y - 8, 40, 6);
    context.fillStyle = healthColour(player.health);
    context.fillRect(barLeft, y - 8, 40 * Math.max(0, player.health) / ArenaRules.maximumHealth, 6);
  });
}

/**
 * @param {CanvasRenderingContext2D} context
 * @param {Frame} frame
 * @param {ScenePlayer | undefined} local
 * @param {number} left
 * @param {number} top
 * @param {number} width
 */
function drawFooter(context, frame, local, left, top, width) {
  context.font = `14px ${font}`;
  if (local) {
    context.fillStyle = local.health > 0 ? healthColour(local.health) : '#e04040';
    context.fillText(local.health > 0 ? `HP ${local.health}  kills ${local.score}` : `you are down, respawning…  kills ${local.score}`, left, top + 14);
  }
  context.fillStyle = frame.isConnected ? '#40d040' : '#e0c030';
  const status = frame.status;
  context.fillText(status, Math.max(left + 220, left + width - context.measureText(status).width), top + 14);
  context.fillStyle = '#909098';
  context.font = `12px ${font}`;
  context.fillText('WASD or arrows move · space fires · e rail · n net graph · q leaves', left, top + 34);
}

/**
 * @param {CanvasRenderingContext2D} context
 * @param {string[]} lines
 * @param {number} left
 * @param {number} top
 */
function drawNetGraph(context, lines, left, top) {
  context.font = `12px ${font}`;
  const width = Math.max(...lines.map((line) => context.measureText(line).width)) + 16;
  context.fillStyle = 'rgba(0, 0, 0, 0.78)';
  context.fillRect(left, top, width, lines.length * 16 + 10);
  context.fillStyle = '#c0f0c0';
  lines.forEach((line, index) => context.fillText(line, left + 8, top + 18 + index * 16));
}

/**
 * A message over the map (a refusal, a decode error), wrapped to its width.
 * @param {CanvasRenderingContext2D} context
 * @param {string} message
 * @param {number} left
 * @param {number} top
 * @param {number} width
 * @param {number} height
 */
function drawMessage(context, message, left, top, width, height) {
  context.font = `16px ${font}`;
  const words = message.split(' ');
  /** @type {string[]} */
  const lines = [];
  let line = '';
  for (const word of words) {
    const candidate = line ? `${line} ${word}` : word;
    if (context.measureText(candidate).width > width - 48 && line) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line) lines.push(line);
  const boxHeight = lines.length * 22 + 24;
  const boxTop = top + Math.max(8, (height - boxHeight) / 2);
  context.fillStyle = 'rgba(60, 10, 10, 0.92)';
  context.fillRect(left + 16, boxTop, width - 32, boxHeight);
  context.fillStyle = '#ffe0e0';
  lines.forEach((text, index) => context.fillText(text, left + 24, boxTop + 26 + index * 22));
}
