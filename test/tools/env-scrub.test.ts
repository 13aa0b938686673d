/**
 * The env scrub as a table: secrets by name, by what Tea is configured with, and by
 * value under innocent names; and innocent values that must pass.
 */
import { describe, expect, it } from 'vitest';
import { type EnvScrubOptions, scrubEnv, scrubReason } from '../../src/tools/builtin/env-scrub.js';

const CONFIGURED = 'zz-configured-secret-1234';
const opts: EnvScrubOptions = { names: ['MY_LLM', 'PATH', 'TOOL_PORT'], values: [CONFIGURED, 'short'] };

const NAME = 'its name looks secret';
const CONF_NAME = 'Tea is configured with it';
const CONF_VALUE = 'it holds a secret Tea is configured with';
const KEEP = 'kept';

/** [name, value, why it is dropped (or KEEP)]. */
const TABLE: Array<[string, string, string]> = [
  // By name
  ['OPENAI_API_KEY', 'sk-anything', NAME],
  ['GITHUB_TOKEN', 'x', NAME],
  ['MY_APP_SECRET', 'x', NAME],
  ['DB_PASSWORD', 'x', NAME],
  ['DB_PASS', 'hunter2', NAME],
  ['AWS_REGION', 'eu-west-1', NAME],
  ['SESSION_COOKIE', 'c', NAME],
  ['SLACK_WEBHOOK_URL', 'https://example.com/anything', NAME],
  ['SENTRY_DSN', 'https://abc@o1.ingest.sentry.io/1', NAME],
  ['GPG_PASSPHRASE', 'x', NAME],
  ['TEA_API_TOKEN', 'x', NAME],
  // What Tea is configured with
  ['MY_LLM', 'anything at all', CONF_NAME],
  ['TOOL_PORT', '3001', CONF_NAME],
  ['LLM_SETTING', CONFIGURED, CONF_VALUE],
  ['FULL_ENDPOINT', `https://api.example.com/v1?k=${CONFIGURED}`, CONF_VALUE],
  // Innocent names, secret values
  ['DATABASE_URL', 'postgres://app:hunter2@db.internal:5432/app', 'a URL with a password'],
  ['REDIS_URL', 'redis://:s3cretpass@cache:6379/0', 'a URL with a password'],
  ['GIT_REMOTE', 'https://x-access-token:abc123@github.com/o/r.git', 'a URL with a password'],
  ['REPO_URL', 'https://ghp1234567890abcdefghijABCDEFGH@github.com/o/r.git', 'a URL with a token'],
  [
    'NOTIFY_URL',
    'https://hooks.slack.com/services/T0000000/B0000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    'a webhook URL',
  ],
  ['ALERTS', 'https://discord.com/api/webhooks/123456/abcdefABCDEF', 'a webhook URL'],
  [
    'SIGNED_URL',
    'https://b.s3.amazonaws.com/x.tar?X-Amz-Signature=abcdef1234567890',
    'a URL with a credential in its query',
  ],
  [
    'AZURE_STORAGE',
    'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=abc123def456==;EndpointSuffix=core.windows.net',
    'a connection string with a key or password',
  ],
  ['LLM', 'sk-proj-abcdefghijklmnop0123456789', 'a known token format'],
  ['GH', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'a known token format'],
  ['CHAT_BOT', 'xoxb-123456789012-abcdefghijkl', 'a known token format'],
  ['DEPLOY_ID', 'AKIAIOSFODNN7EXAMPLE', 'a known token format'],
  [
    'SESSION',
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'a known token format',
  ],
  ['SSL_MATERIAL', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow...', 'a known token format'],
  ['STRIPE', 'sk_live_abcdefghijklmnop1234', 'a known token format'],
  ['HF_HOME_ID', 'hf_abcdefghijklmnopqrstuvwxyzABCDEF', 'a known token format'],
  ['MIRROR', 'Xk9mPq2RtV7wYz4AbC8dEf1GhJ5kLm3NqW', 'a high-entropy token'],
  ['UPLOAD', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'a high-entropy token'],
  // Innocent values that must pass
  ['PATH', '/usr/local/bin:/usr/bin:/bin', KEEP],
  ['HOME', '/home/u', KEEP],
  ['LANG', 'en_US.UTF-8', KEEP],
  ['TERM', 'xterm-256color', KEEP],
  ['EDITOR', 'vim', KEEP],
  ['NODE_ENV', 'production', KEEP],
  ['DATABASE_URL', 'postgres://localhost:5432/dev', KEEP],
  ['HTTP_PROXY', 'http://proxy.corp:3128', KEEP],
  ['npm_config_registry', 'https://registry.npmjs.org/', KEEP],
  ['GIT_COMMIT', '9f3c2a1b4d5e6f708192a3b4c5d6e7f8091a2b3c', KEEP],
  ['INVOCATION_ID', '9f3c2a1b4d5e6f708192a3b4c5d6e7f8', KEEP],
  ['WT_SESSION', '550e8400-e29b-41d4-a716-446655440000', KEEP],
  ['BUILD_TARGET', 'MyApplicationName2024ReleaseBuildTarget', KEEP],
  ['NVM_BIN', '/home/u/.nvm/versions/node/v20.11.0/bin', KEEP],
  ['GIT_URL', 'ssh://git@github.com/org/repo.git', KEEP],
  ['SSH_AUTH_SOCK', '/tmp/ssh-XXXX/agent.123', KEEP],
  ['LS_COLORS', 'rs=0:di=01;34:ln=01;36:mh=00:pi=40;33', KEEP],
  ['GREETING', 'short', KEEP],
];

describe('scrubReason', () => {
  it.each(TABLE)('%s=%s → %s', (name, value, expected) => {
    const reason = scrubReason(name, value, opts) ?? KEEP;
    const byValue = ![KEEP, NAME, CONF_NAME, CONF_VALUE].includes(expected);
    expect(reason).toBe(byValue ? `its value looks like ${expected}` : expected);
  });

  it('has enough cases of each kind', () => {
    const kept = TABLE.filter(([, , e]) => e === KEEP).length;
    const byValue = TABLE.filter(([, , e]) => ![KEEP, NAME, CONF_NAME, CONF_VALUE].includes(e)).length;
    expect(TABLE.length).toBeGreaterThanOrEqual(30);
    expect(kept).toBeGreaterThanOrEqual(12);
    expect(byValue).toBeGreaterThanOrEqual(12);
  });

  it('passes what tools.env_allow names, whatever it holds; scrub off passes everything', () => {
    const allow = { ...opts, allow: ['DATABASE_URL', 'MY_APP_*'] };
    expect(scrubReason('DATABASE_URL', 'postgres://app:hunter2@db/app', allow)).toBeUndefined();
    expect(scrubReason('MY_APP_SECRET', 'x', allow)).toBeUndefined();
    expect(scrubReason('MY_LLM', 'x', { ...opts, enabled: false })).toBeUndefined();
  });
});

describe('scrubEnv', () => {
  it('keeps exactly the innocent variables of the table', () => {
    // DATABASE_URL appears twice: the later (innocent) row is the one in the env.
    const env: NodeJS.ProcessEnv = Object.fromEntries(TABLE.map(([name, value]) => [name, value]));
    const expected = Object.keys(env).filter(
      (name) => TABLE.findLast((row) => row[0] === name)?.[2] === KEEP,
    );
    expect(Object.keys(scrubEnv(env, opts)).sort()).toEqual(expected.sort());
    expect(expected).toContain('DATABASE_URL');
    expect(expected.length).toBeGreaterThanOrEqual(15);
  });
});
