// The JavaScript side of `tickwire bench js` for the motion-predicted entropy coding (PROTOCOL.md
// 4.5.6): decodes the `arena-client-56` scene's snapshots as Swift encoded them with
// `EntropySnapshotDecoder`, and prints the median microseconds per snapshot as JSON. A process of
// its own, as a browser's connection uses one coding: run after the bit-packed decoders in the
// same process, its time varied 2x between runs with the type feedback and heap they left.
//
// usage: node Tools/bench-js/decodePredicted.mjs PREDICTED_FILE RUNS
// The file holds the encodings (not frames), each as a little-endian u32 length and the bytes:
// the first snapshot whole, then one delta per tick against the previous one.
import { EntropySnapshotDecoder, Motion } from '../../Clients/javascript/entropyDecoder.js';
// The arena's schema imports `@tickwire/client` by name (the page's import map); resolveClient.mjs
// resolves it for Node, for the dynamic import that follows it.
import '../../Sources/ArenaGame/Web/node/resolveClient.mjs';
import { readFrames, time } from './timing.mjs';

const { arenaSchema } = await import('../../Sources/ArenaGame/Web/arena/arenaSchema.js');

const [path, runsText] = process.argv.slice(2);
const encodings = readFrames(path);
const decoder = new EntropySnapshotDecoder(arenaSchema);
// Down the chain once as a client takes it, keeping each snapshot's motion; the timed passes
// then decode each delta against its stored baseline and that baseline's motion.
const chain = [decoder.decode(encodings[0], undefined, Motion.zero)];
for (let index = 1; index < encodings.length; index++) {
  chain.push(decoder.decode(encodings[index], chain[index - 1].snapshot, chain[index - 1].motion));
}
const predicted = time(() => {
  let entities = 0;
  for (let index = 1; index < encodings.length; index++) {
    entities += decoder.decode(encodings[index], chain[index - 1].snapshot, chain[index - 1].motion).snapshot.count;
  }
  return entities;
}, encodings.length - 1, Number(runsText ?? 5));
process.stdout.write(JSON.stringify({
  deltas: encodings.length - 1, lastSnapshot: chain[chain.length - 1].snapshot.describeEntities().join('\n'), predicted,
}) + '\n');
