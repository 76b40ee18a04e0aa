// Clock sync, the adaptive interpolation delay, the playback clock and the interpolation
// buffer: the same behaviour as ClockSync.swift, InterpolationDelay.swift, PlaybackClock.swift
// and InterpolationBuffer.swift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClockSync } from '../clockSync.js';
import { InterpolationBuffer } from '../interpolationBuffer.js';
import { InterpolationDelay } from '../interpolationDelay.js';
import { PlaybackClock } from '../playbackClock.js';
import { Snapshot } from '../snapshot.js';
import { vectorSchemas } from './vectors.mjs';

test('clock sync trusts the fastest round trips: a slow outlier does not move the offset', () => {
  const sync = new ClockSync();
  // Server clock = local + 5; symmetric 40 ms round trips, then one 400 ms sample whose delay was all on the way back.
  for (let index = 0; index < 8; index++) sync.addSample(index, index + 5 + 0.02, index + 0.04);
  assert.ok(Math.abs((sync.offset ?? 0) - 5) < 1e-9);
  sync.addSample(10, 10 + 5 + 0.02, 10.4);
  assert.ok(Math.abs((sync.offset ?? 0) - 5) < 1e-9, `offset ${sync.offset}`);
  assert.ok(Math.abs(sync.roundTrip - 0.04) < 1e-9, 'the median round trip ignores the outlier');
  assert.ok(Math.abs((sync.serverTime(20) ?? 0) - 25) < 1e-9);
});

test('clock sync snaps to a new offset past 0.25 s and smooths smaller changes', () => {
  const sync = new ClockSync();
  sync.addSample(0, 5.01, 0.02);
  assert.ok(Math.abs((sync.offset ?? 0) - 5) < 1e-9);
  for (let index = 1; index <= 16; index++) sync.addSample(index, index + 5.11, index + 0.02);
  assert.ok(Math.abs((sync.offset ?? 0) - 5.1) < 0.01, `smoothed towards 5.1: ${sync.offset}`);
  for (let index = 20; index <= 36; index++) sync.addSample(index, index + 9.01, index + 0.02);
  assert.ok(Math.abs((sync.offset ?? 0) - 9) < 1e-9, `snapped to 9: ${sync.offset}`);
});

test('the interpolation delay is two intervals plus three jitters, clamped to 30 … 500 ms', () => {
  const delay = new InterpolationDelay(1 / 30);
  for (let index = 0; index < 100; index++) delay.recordArrival(index / 30, index / 30);
  assert.ok(Math.abs(delay.target - 2 / 30) < 1e-9, `steady arrivals: ${delay.target}`);
  const jittery = new InterpolationDelay(1 / 30);
  for (let index = 0; index < 200; index++) jittery.recordArrival(index / 30, index / 30 + (index % 2) * 0.02);
  assert.ok(jittery.target > 2 / 30 + 0.03, `jitter adds delay: ${jittery.target}`);
  const slow = new InterpolationDelay(2);
  slow.recordArrival(0, 0);
  assert.equal(slow.target, 0.5);
  const fast = new InterpolationDelay(0.001);
  fast.recordArrival(0, 0);
  assert.equal(fast.target, 0.03);
});

test('the playback clock starts at the target, drifts at most 5 % towards it and snaps past 0.25 s', () => {
  const clock = new PlaybackClock();
  assert.equal(clock.advance(0.1, 10), 10);
  const time = clock.advance(0.1, 10.2);
  assert.ok(Math.abs(time - 10.1) < 1e-9);
  assert.equal(clock.rate, 1.05, 'behind by 0.1 s: the fastest rate');
  assert.equal(clock.advance(0, 11), 11, 'snaps');
  assert.equal(clock.rate, 1);
});

/**
 * @param {number} tick
 * @param {number} x
 */
function arenaSnapshot(tick, x) {
  const snapshot = new Snapshot(vectorSchemas.arena, tick);
  snapshot.append(1, 0, [x, 32768, 1020, 100, 0]);
  return snapshot;
}

test('the interpolation buffer interpolates, extrapolates at most 0.1 s, turns angles the short way', () => {
  const buffer = new InterpolationBuffer(4, 0.1);
  assert.equal(buffer.sample(0), undefined);
  buffer.insert(arenaSnapshot(1, 32768), 1.0);
  const second = arenaSnapshot(2, 32768 + 64);
  second.values[0][2] = 4; // heading 1020 → 4 of 1024: across zero
  buffer.insert(second, 1.1);
  const middle = buffer.sample(1.05);
  assert.ok(middle);
  assert.ok(Math.abs(middle.entities[0].values[0] - 0.5) < 1e-9, `x halfway: ${middle.entities[0].values[0]}`);
  const heading = middle.entities[0].values[2];
  assert.ok(heading < 0.01 || heading > 2 * Math.PI - 0.01, `heading near 0, not half a turn: ${heading}`);
  const ahead = buffer.sample(1.5);
  assert.ok(ahead?.isExtrapolated);
  assert.ok(Math.abs((ahead?.entities[0].values[0] ?? 0) - 2) < 1e-9, 'extrapolated 0.1 s at most: x = 1 + 1');
  assert.equal(buffer.insert(arenaSnapshot(3, 0), 1.1), false, 'not newer: ignored');
});

test('the interpolation buffer keeps at most its capacity and discards what render time passed', () => {
  const buffer = new InterpolationBuffer(3);
  for (let index = 0; index < 10; index++) buffer.insert(arenaSnapshot(index, index), index);
  assert.equal(buffer.count, 3);
  buffer.discard(100);
  assert.equal(buffer.count, 2, 'two are always kept');
  assert.equal(buffer.depth(8.5), 1);
});
