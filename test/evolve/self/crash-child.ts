/**
 * A Tea process that runs one self_modify and gets killed in the middle (crash.test.ts):
 * argv: repository, Tea home, patch file. It prints "gate N" as each gate starts.
 */
import { readFileSync } from 'node:fs';
import { selfModify } from '../../../src/evolve/self/pipeline.js';

const [root, home, patchFile] = process.argv.slice(2);
await selfModify({
  root: root!,
  home: home!,
  reason: 'a run that will be killed',
  patch: readFileSync(patchFile!, 'utf8'),
  signal: new AbortController().signal,
  onGate: (n) => process.stdout.write(`gate ${n}\n`),
});
process.stdout.write('finished\n');
