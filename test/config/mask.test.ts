import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, maskedConfig, maskSecret } from '../../src/config/index.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const MAIN_SECRET = 'sk-proj-Zq81mainSecretValue0042abcd';
const INLINE_SECRET = 'sk-ant-inlineSecretValue9876wxyz';
const HEADER_SECRET = 'Bearer hdr-secret-value-31337';

/** Asserts that no telling part of `secret` shows in `text`. */
function expectHidden(text: string, secret: string): void {
  expect(text).not.toContain(secret);
  expect(text).not.toContain(secret.slice(0, -4));
  expect(text).not.toContain(secret.slice(8, 20));
}

describe('maskSecret', () => {
  it('keeps a known prefix and at most the last 4 characters', () => {
    expect(maskSecret('sk-abcdefghijklmnopqrstuvwxyzabcd')).toBe('sk-…abcd');
    expect(maskSecret('sk-ant-api03-0123456789abcdefWXYZ')).toBe('sk-ant-…WXYZ');
    expect(maskSecret('plain0123456789abcdefghij')).toBe('…ghij');
  });

  it('hides short secrets entirely', () => {
    expect(maskSecret('sk-short')).toBe('****');
    expect(maskSecret('abc123')).toBe('****');
  });
});

describe('maskedConfig', () => {
  it('resolves api_key_env, masks every secret and says where each key came from', async () => {
    const user = dirs.writeUser(`
main_model:
  base_url: https://user:pa55word@api.openai.com/v1?api-key=querysecret123
  api_key_env: MY_OPENAI_KEY
  model: gpt-4o
  headers: { Authorization: "${HEADER_SECRET}", X-Title: Tea }
profiles:
  claude: { provider: anthropic, api_key: ${INLINE_SECRET}, model: claude-sonnet-4-5 }
  deepseek: { base_url: https://api.deepseek.com/v1, api_key_env: DEEPSEEK_API_KEY, model: deepseek-chat }
  local: { base_url: http://127.0.0.1:8000/v1, model: qwen3 }
`);
    const config = await loadConfig({
      cwd: dirs.project,
      env: { TEA_HOME: dirs.home, MY_OPENAI_KEY: MAIN_SECRET },
      detectOllama: false,
    });
    // The key is resolved for use...
    expect(config.mainModel?.apiKey).toBe(MAIN_SECRET);
    expect(config.keySources?.main_model).toEqual({
      kind: 'env',
      variable: 'MY_OPENAI_KEY',
      set: true,
      file: user,
    });
    // ...an unset variable is not an error, and the profile still resolves...
    expect(config.profiles.deepseek?.apiKey).toBeUndefined();
    expect(config.keySources?.deepseek).toEqual({
      kind: 'env',
      variable: 'DEEPSEEK_API_KEY',
      set: false,
      file: user,
    });

    const text = maskedConfig(config);
    // ...but never shown.
    expectHidden(text, MAIN_SECRET);
    expectHidden(text, INLINE_SECRET);
    expectHidden(text, HEADER_SECRET);
    expect(text).not.toContain('pa55word');
    expect(text).not.toContain('querysecret123');

    const shown = parse(text) as Record<string, Record<string, Record<string, unknown>>>;
    expect(shown.main_model?.api_key).toBe('sk-proj-…abcd');
    expect(shown.main_model?.model).toBe('gpt-4o');
    expect(shown.main_model?.headers).toEqual({ Authorization: '****', 'X-Title': 'Tea' });
    expect(shown.profiles?.claude).toMatchObject({ api_key: 'sk-ant-…wxyz', provider: 'anthropic' });
    expect(shown.profiles?.deepseek?.api_key).toBe('<unset: $DEEPSEEK_API_KEY>');
    expect(shown.profiles?.local).not.toHaveProperty('api_key');
    // Provenance comments.
    expect(text).toMatch(/api_key: sk-proj-…abcd # from \$MY_OPENAI_KEY \(named in .*config\.yaml\)/);
    expect(text).toMatch(/api_key: sk-ant-…wxyz # written in .*config\.yaml/);
    expect(text).toContain('set $DEEPSEEK_API_KEY to use this profile');
  });

  it('renders the whole effective config in the file format', async () => {
    dirs.writeUser(
      'llm: { timeout_s: 30, breaker: { recovery_s: 10 } }\nmodels: { m1: { context_window: 4096 }, llava-x: { images: false } }\n',
    );
    const config = await loadConfig({
      cwd: dirs.project,
      env: { TEA_HOME: dirs.home, OPENAI_API_KEY: MAIN_SECRET },
      detectOllama: false,
    });
    const text = maskedConfig(config);
    expectHidden(text, MAIN_SECRET);
    const shown = parse(text) as Record<string, unknown>;
    expect(shown.home).toBe(dirs.home);
    expect(shown.files).toEqual(config.files);
    expect(shown.llm).toEqual({
      timeout_s: 30,
      call_timeout_s: 180,
      stream_max_s: 600,
      max_retries: 3,
      retry_base_ms: 1000,
      breaker: { failure_threshold: 5, recovery_s: 10 },
    });
    expect(shown.models).toEqual({ m1: { context_window: 4096 }, 'llava-x': { images: false } });
    expect(shown.embedding).toBe('built-in offline embedder');
    expect(text).toContain('# from $OPENAI_API_KEY');
    expect(text).toContain('# same as main_model');
  });
});
