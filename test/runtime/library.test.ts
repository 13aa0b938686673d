/**
 * Tea as a library, as a user gets it: the packed tarball unpacked into a new
 * project's node_modules, the README's example run against the scripted model
 * server, and the same example type-checked against the shipped declarations.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Temp dirs that live for the whole file (the project is set up once). */
const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-lib-'));
  made.push(dir);
  return dir;
}

/** The README's library example, between its ```ts fences under "## Use it as a library". */
function readmeExample(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it as a library'));
  const m = /```ts\n([\s\S]*?)```/.exec(section);
  if (!m?.[1]) throw new Error('README.md has no ```ts example under "## Use it as a library"');
  return m[1];
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{
  code: number | null;
  stdout: string;
  stderr: string;
}> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The top-level packages `npm ls` finds for the production dependencies, transitively. */
function productionPackages(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const top = path.join(ROOT, 'node_modules') + path.sep;
  const names = new Set<string>();
  for (const line of out.split('\n')) {
    if (!line.startsWith(top)) continue;
    const parts = line.slice(top.length).split(path.sep);
    names.add(parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return [...names];
}

let model: ModelServer;
let project: string;

beforeAll(async () => {
  model = await startModelServer();
  // The declarations are built as `npm pack` builds them (prepack), then packed without scripts
  // (dist/ is the build the test run made).
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-types.mjs')], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  const packDir = tempDir();
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const filename = (JSON.parse(out) as Array<{ filename: string }>)[0]!.filename;
  project = tempDir();
  const modules = path.join(project, 'node_modules');
  const pkg = path.join(modules, 'tea-agent');
  mkdirSync(pkg, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(packDir, filename), '-C', pkg, '--strip-components=1']);
  // Its production dependencies as npm would install them (no network here): the
  // repository's copies, and none of its dev dependencies; plus what the user's own
  // project brings for type-checking (typescript is run from the repository).
  for (const name of [...productionPackages(), '@types/node', 'undici-types']) {
    const to = path.join(modules, name);
    if (existsSync(to)) continue;
    mkdirSync(path.dirname(to), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', name), to);
  }
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module' }));
}, 120_000);

afterAll(async () => {
  await model.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('import { createRuntime } from "tea-agent"', () => {
  it('the packed tarball ships the library entry and its declarations', () => {
    const pkg = path.join(project, 'node_modules', 'tea-agent');
    const manifest = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; import: string }>;
    };
    const entry = manifest.exports['.']!;
    expect(readFileSync(path.join(pkg, entry.import), 'utf8')).toContain('createRuntime');
    expect(readFileSync(path.join(pkg, entry.types), 'utf8')).toContain('createRuntime');
  });

  it('runs the README example against a model, answering an approval through the events', async () => {
    writeFileSync(path.join(project, 'example.mjs'), readmeExample());
    const home = tempDir();
    writeFileSync(
      path.join(home, 'config.yaml'),
      'agent: { auto_title: false }\nmemory: { extract: false }\n',
    );
    model.script(
      reply().toolCall('write_file', { path: 'hello.txt', content: 'from the library' }),
      reply().text('Wrote hello.txt.'),
    );
    const env = {
      ...process.env,
      TEA_HOME: home,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
      OLLAMA_HOST: 'http://127.0.0.1:9',
    };
    const r = await run(process.execPath, ['example.mjs'], project, env);
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Wrote hello.txt.');
    expect(readFileSync(path.join(project, 'hello.txt'), 'utf8')).toBe('from the library');
    expect(model.requests[0]?.body.model).toBe('scripted-model');
  });

  it('the example type-checks against the shipped declarations', async () => {
    writeFileSync(path.join(project, 'example.ts'), readmeExample());
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['example.ts'],
      }),
    );
    const typescript = path.join(ROOT, 'node_modules', 'typescript');
    const r = await run(
      process.execPath,
      [path.join(typescript, 'bin', 'tsc'), '-p', '.'],
      project,
      process.env,
    );
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
