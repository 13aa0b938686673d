import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../../src/store/package-file.js';
import { sqliteAddon } from '../../src/store/sqlite-addon.js';

describe('native files of installed packages', () => {
  it('finds a file inside an installed package by its path, and nothing for a missing one', () => {
    const pkg = packageFile('better-sqlite3', 'package.json');
    expect(pkg).toBeDefined();
    expect(existsSync(pkg as string)).toBe(true);
    expect(packageFile('better-sqlite3', 'no-such-file')).toBeUndefined();
    expect(packageFile('no-such-package-here', 'package.json')).toBeUndefined();
  });

  it("locates better-sqlite3's addon, once", () => {
    const addon = sqliteAddon();
    expect(typeof addon).toBe('string');
    expect(basename(addon as string)).toBe('better_sqlite3.node');
    expect(existsSync(addon as string)).toBe(true);
    expect(sqliteAddon()).toBe(addon);
  });
});
