#!/usr/bin/env node
// Entry point of the `tea` command. `--version` is answered here without loading
// the CLI; everything else loads the bundled CLI from dist/.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { main } = await import('../dist/main.js');
  process.exitCode = await main(args);
}
