// The arena's schema, as Sources/ArenaGame/Net/ArenaSchema.swift declares it: the browser must
// send the same fingerprint in its hello. Tests/JavaScriptTests/arenaRules.test.mjs checks it
// against the canonical encoding Swift writes into Tests/ArenaGameTests/Fixtures/trajectories.json.
import { FieldKind, Schema, entityType, field } from '@tickwire/client';
import { ArenaRules } from './arenaRules.js';

/** The name field's bound in UTF-8 bytes: `maximumNameLength` characters of up to four bytes each (ArenaSchema.nameBytes). */
export const nameBytes = 4 * ArenaRules.maximumNameLength;

/** Field indices of the player type. */
export const PlayerField = Object.freeze({ x: 0, y: 1, heading: 2, health: 3, score: 4, isBot: 5, name: 6 });

/** Field indices of the bullet type. */
export const BulletField = Object.freeze({ x: 0, y: 1 });

/** Field indices of the rail type (a rail shot's trace). */
export const RailField = Object.freeze({ x: 0, y: 1, endX: 2, endY: 3 });

/** Type indices. */
export const ArenaType = Object.freeze({ player: 0, bullet: 1, rail: 2 });

const position = FieldKind.float(0, 64, 1 / 64);

/** The arena schema: players (position, heading, health, score, bot flag, name), bullets and rail traces. */
export const arenaSchema = new Schema([
  entityType('player', [
    field('x', position), field('y', position), field('heading', FieldKind.angle(4)),
    field('health', FieldKind.integer(0, ArenaRules.maximumHealth)), field('score', FieldKind.integer(0, 4095)),
    field('isBot', FieldKind.bool), field('name', FieldKind.text(nameBytes)),
  ]),
  entityType('bullet', [field('x', position), field('y', position)]),
  entityType('rail', [field('x', position), field('y', position), field('endX', position), field('endY', position)]),
]);
