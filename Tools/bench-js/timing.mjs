// What the JavaScript sides of `tickwire bench js` share: reading the files Swift writes, and
// timing a body the same way in each.
import { readFileSync } from 'node:fs';

/** Passes over the frames per timed run: about 0.1 s of work, so that timer and scheduler noise is small. */
const passes = 20;

/**
 * @param {string} file
 * @returns {Uint8Array[]} The records of a file of length-prefixed records (a little-endian u32 length, then the bytes).
 */
export function readFrames(file) {
  const bytes = readFileSync(file);
  const result = [];
  for (let offset = 0; offset < bytes.length;) {
    const length = bytes.readUInt32LE(offset);
    result.push(new Uint8Array(bytes.buffer, bytes.byteOffset + offset + 4, length));
    offset += 4 + length;
  }
  return result;
}

/**
 * @param {() => unknown} body One pass: decodes `count` snapshots.
 * @param {number} count
 * @param {number} runs
 * @returns {{cpu: number, wall: number}} Median microseconds per snapshot (CPU of the process, and wall clock).
 */
export function time(body, count, runs) {
  // Warm-up: half a second, so that the JIT has compiled the hot paths at its top tier.
  for (const start = performance.now(); performance.now() - start < 500;) body();
  const cpu = [], wall = [];
  for (let run = 0; run < runs; run++) {
    const startCPU = process.cpuUsage(), start = performance.now();
    for (let pass = 0; pass < passes; pass++) body();
    const used = process.cpuUsage(startCPU);
    wall.push((performance.now() - start) * 1000 / count / passes);
    cpu.push((used.user + used.system) / count / passes);
  }
  const median = (/** @type {number[]} */ values) => values.sort((a, b) => a - b)[values.length >> 1];
  return { cpu: median(cpu), wall: median(wall) };
}
