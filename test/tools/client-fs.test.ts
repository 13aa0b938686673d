import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ClientFs, ToolError } from '../../src/tools/types.js';
import { runBuiltin, tempDir, writeTree } from './helpers.js';

/** An editor's view of the files: buffers that differ from the disk, and a log of calls. */
class FakeClientFs implements ClientFs {
  readonly buffers = new Map<string, string>();
  readonly reads: string[] = [];
  readonly writes: Array<{ path: string; content: string }> = [];

  async readTextFile(path: string): Promise<string> {
    this.reads.push(path);
    const text = this.buffers.get(path);
    if (text === undefined) throw new ToolError(`the editor has no buffer for ${path}`);
    return text;
  }

  async writeTextFile(path: string, content: string): Promise<void> {
    this.writes.push({ path, content });
    this.buffers.set(path, content);
  }
}

async function setup(): Promise<{ cwd: string; fs: FakeClientFs }> {
  const cwd = await writeTree(await tempDir(), {
    'notes.txt': 'disk one\ndisk two\n',
    'pic.png': Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
    'bin.dat': Buffer.from([1, 0, 2, 0]),
  });
  const fs = new FakeClientFs();
  fs.buffers.set(join(cwd, 'notes.txt'), 'buffer one\nbuffer two\nbuffer three\n');
  return { cwd, fs };
}

describe('file tools with a client file system (ctx.fs)', () => {
  it('read_file reads text from the editor buffer, with the usual numbering and windows', async () => {
    const { cwd, fs } = await setup();
    const r = await runBuiltin(cwd, 'read_file', { path: 'notes.txt', offset: 2, limit: 1 }, { ctx: { fs } });
    expect(r.status).toBe('ok');
    expect(r.output).toBe('     2\tbuffer two\n… 1 more line; call again with offset=3');
    expect(fs.reads).toEqual([join(cwd, 'notes.txt')]);
  });

  it('read_file still reads images from disk and refuses binaries without asking the editor', async () => {
    const { cwd, fs } = await setup();
    const img = await runBuiltin(cwd, 'read_file', { path: 'pic.png' }, { ctx: { fs } });
    expect(img.status).toBe('ok');
    expect(img.output).toContain('image pic.png');
    const bin = await runBuiltin(cwd, 'read_file', { path: 'bin.dat' }, { ctx: { fs } });
    expect(bin.status).toBe('error');
    expect(bin.output).toContain('binary file');
    expect(fs.reads).toEqual([]);
  });

  it('write_file writes through the editor and leaves the disk alone', async () => {
    const { cwd, fs } = await setup();
    const r = await runBuiltin(cwd, 'write_file', { path: 'sub/new.txt', content: 'hi\n' }, { ctx: { fs } });
    expect(r.status).toBe('ok');
    expect(r.output).toContain('Created sub/new.txt');
    expect(fs.writes).toEqual([{ path: join(cwd, 'sub/new.txt'), content: 'hi\n' }]);
    expect(existsSync(join(cwd, 'sub'))).toBe(false);
  });

  it('edit_file edits the buffer content and writes it back through the editor', async () => {
    const { cwd, fs } = await setup();
    const r = await runBuiltin(
      cwd,
      'edit_file',
      { path: 'notes.txt', old_string: 'buffer two', new_string: 'BUFFER 2' },
      { ctx: { fs } },
    );
    expect(r.status).toBe('ok');
    expect(r.output).toContain('+BUFFER 2');
    expect(fs.writes).toEqual([
      { path: join(cwd, 'notes.txt'), content: 'buffer one\nBUFFER 2\nbuffer three\n' },
    ]);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('disk one\ndisk two\n');
  });

  it('an editor failure becomes a clear tool error', async () => {
    const { cwd } = await setup();
    const failing: ClientFs = {
      readTextFile: async () => 'x\n',
      writeTextFile: async (p) => {
        throw new ToolError(`the editor could not write ${p}: read-only buffer`);
      },
    };
    const r = await runBuiltin(cwd, 'write_file', { path: 'a.txt', content: 'y' }, { ctx: { fs: failing } });
    expect(r.status).toBe('error');
    expect(r.output).toContain('read-only buffer');
  });

  it('without ctx.fs the tools use the disk as before', async () => {
    const { cwd } = await setup();
    const read = await runBuiltin(cwd, 'read_file', { path: 'notes.txt' });
    expect(read.output).toContain('disk one');
    await runBuiltin(cwd, 'edit_file', { path: 'notes.txt', old_string: 'disk two', new_string: 'DISK 2' });
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('disk one\nDISK 2\n');
    await runBuiltin(cwd, 'write_file', { path: 'sub/new.txt', content: 'hi\n' });
    expect(readFileSync(join(cwd, 'sub/new.txt'), 'utf8')).toBe('hi\n');
  });
  it('apply_patch updates the editor buffer (not the disk) and adds new files through the editor', async () => {
    const { cwd, fs } = await setup();
    const patch = [
      '*** Begin Patch',
      '*** Update File: notes.txt',
      '@@',
      ' buffer one',
      '-buffer two',
      '+buffer 2',
      '*** Add File: added.txt',
      '+fresh',
      '*** End Patch',
    ].join('\n');
    const r = await runBuiltin(cwd, 'apply_patch', { patch }, { ctx: { fs } });
    expect(r.status).toBe('ok');
    expect(fs.buffers.get(join(cwd, 'notes.txt'))).toBe('buffer one\nbuffer 2\nbuffer three\n');
    expect(fs.buffers.get(join(cwd, 'added.txt'))).toBe('fresh\n');
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('disk one\ndisk two\n');
    expect(existsSync(join(cwd, 'added.txt'))).toBe(false);
  });

  it('apply_patch restores the buffers already written when the editor refuses a later write', async () => {
    const { cwd, fs } = await setup();
    fs.buffers.set(join(cwd, 'other.txt'), 'x\n');
    await writeTree(cwd, { 'other.txt': 'x\n' });
    const original = fs.writeTextFile.bind(fs);
    fs.writeTextFile = async (path: string, content: string) => {
      if (path.endsWith('other.txt')) throw new Error('read-only buffer');
      return original(path, content);
    };
    const patch = [
      '*** Begin Patch',
      '*** Update File: notes.txt',
      '@@',
      '-buffer one',
      '+buffer 1',
      '*** Update File: other.txt',
      '@@',
      '-x',
      '+y',
      '*** End Patch',
    ].join('\n');
    const r = await runBuiltin(cwd, 'apply_patch', { patch }, { ctx: { fs } });
    expect(r.status).toBe('error');
    expect(r.output).toContain('through the editor (read-only buffer)');
    expect(fs.buffers.get(join(cwd, 'notes.txt'))).toBe('buffer one\nbuffer two\nbuffer three\n');
  });

  it('apply_patch with a deletion goes to disk: the editor has no delete', async () => {
    const { cwd, fs } = await setup();
    await writeTree(cwd, { 'gone.txt': 'bye\n' });
    const patch = ['*** Begin Patch', '*** Delete File: gone.txt', '*** End Patch'].join('\n');
    const r = await runBuiltin(cwd, 'apply_patch', { patch }, { ctx: { fs } });
    expect(r.status).toBe('ok');
    expect(existsSync(join(cwd, 'gone.txt'))).toBe(false);
    expect(fs.writes).toEqual([]);
  });
});
