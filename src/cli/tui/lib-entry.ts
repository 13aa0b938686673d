/**
 * The entry of dist/tui-lib.cjs (scripts/build.mjs): pi-tui, bundled apart from the
 * CLI so that only a run of the terminal UI loads it.
 */
export * from '@mariozechner/pi-tui';
