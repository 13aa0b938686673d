// Compiles scripts/checksum.wat with wabt (the WebAssembly binary toolkit).
// `node scripts/checksum-wasm.mjs` rewrites the CHECKSUM_WASM line of bin/code-cache.js;
// test/cli/code-cache.test.ts checks the bytes there still match the source.
import { readFileSync, writeFileSync } from 'node:fs';
import wabtInit from 'wabt';

const root = new URL('..', import.meta.url).pathname;
const WAT = `${root}scripts/checksum.wat`;
const LOADER = `${root}bin/code-cache.js`;

/** The checksum module's WebAssembly bytes, base64. */
export async function compileChecksum() {
  const wabt = await wabtInit();
  const module = wabt.parseWat('checksum.wat', readFileSync(WAT, 'utf8'));
  try {
    module.validate();
    return Buffer.from(module.toBinary({}).buffer).toString('base64');
  } finally {
    module.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const line = /^const CHECKSUM_WASM = '[^']*';$/m;
  const source = readFileSync(LOADER, 'utf8');
  if (!line.test(source)) throw new Error(`${LOADER}: no CHECKSUM_WASM line to replace`);
  writeFileSync(LOADER, source.replace(line, `const CHECKSUM_WASM = '${await compileChecksum()}';`));
  console.log(`wrote ${LOADER}`);
}
