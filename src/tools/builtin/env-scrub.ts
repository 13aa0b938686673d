/**
 * Environment scrubbing for the programs the agent runs (bash, bg_start, which):
 * a variable is not passed on when
 *  - its name looks secret (`*_TOKEN`, `*_API_KEY`, `AWS_*`, `*WEBHOOK*`, …),
 *  - Tea itself was configured with it (the `api_key_env` of every profile, MCP
 *    server env names, the server tokens: see `configuredSecrets` in config/), or it
 *    holds one of the secret values Tea was configured with, or
 *  - its value looks like a credential whatever it is called: a URL with a password
 *    or a token in it, a webhook URL, a known token format (`sk-…`, `ghp_…`,
 *    `xoxb-…`, `AKIA…`, JWTs, private keys) or a long high-entropy token.
 * So a command (or a script it downloads) cannot read the user's keys from its
 * environment. `tools.env_allow` names always pass.
 */
import { SECRET_VALUE_PATTERNS } from './system-secrets.js';

/** Names that look secret. */
export const SECRET_NAME =
  /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|AUTH|COOKIE|WEBHOOK|SIGNATURE)|(^|_)(PASS|PW|DSN)(_|$)/i;

/** Model provider keys, dropped even if the pattern above is ever loosened. */
export const MODEL_KEY_NAMES: readonly string[] = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'DEEPSEEK_API_KEY',
  'OPENROUTER_API_KEY',
  'DASHSCOPE_API_KEY',
  'QWEN_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'TOGETHER_API_KEY',
  'XAI_API_KEY',
  'MOONSHOT_API_KEY',
  'ZHIPU_API_KEY',
  'TEA_API_KEY',
  'TEA_API_TOKEN',
  'TEA_MCP_TOKEN',
];

/**
 * Passed through by default although the name matches: `SSH_AUTH_SOCK` is the path of
 * the ssh agent's socket (not a key), and without it `git` over ssh stops working.
 */
export const DEFAULT_ENV_ALLOW: readonly string[] = ['SSH_AUTH_SOCK'];

/**
 * The basics every program expects. They are never dropped for what they hold or
 * because an MCP server's env names them too (a server configured with its own
 * `PATH` must not take the shell's away).
 */
const ALWAYS_KEPT =
  /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z_]+|TERM|TERMINFO|COLORTERM|TZ|PWD|OLDPWD|TMPDIR|DISPLAY|WAYLAND_DISPLAY|XDG_[A-Z_]+|EDITOR|VISUAL|PAGER|MANPATH|HOSTNAME|SHLVL|LS_COLORS)$/;

export interface EnvScrubOptions {
  /** Scrub at all (default true). */
  enabled?: boolean;
  /**
   * Names that always pass through; a trailing `*` matches a prefix (`MY_APP_*`).
   * Added to `DEFAULT_ENV_ALLOW`.
   */
  allow?: readonly string[];
  /** Variables Tea itself was configured with: dropped whatever they hold. */
  names?: readonly string[];
  /** Secret values Tea was configured with: a variable holding one is dropped, whatever its name. */
  values?: readonly string[];
}

function allowed(name: string, allow: readonly string[]): boolean {
  return allow.some((entry) => (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry));
}

/** True when `name` would be dropped for its name alone (ignoring the allow-list). */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name) || /^AWS_/i.test(name) || MODEL_KEY_NAMES.includes(name.toUpperCase());
}

/** `scheme://user:password@host`. */
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;
/** `https://<token>@host`: a long user part is a token, not a login name like `git`. */
const URL_TOKEN_USER = /[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9_.~-]{20,}@/i;
/** Webhook URLs: whoever has one can post as the owner. */
const WEBHOOK_URL =
  /hooks\.slack\.com\/(services|workflows|triggers)\/|discord(app)?\.com\/api\/webhooks\/|\.webhook\.office\.com\/|outlook\.office(365)?\.com\/webhook|hooks\.zapier\.com\/hooks\/|api\.telegram\.org\/bot\d+:|chat\.googleapis\.com\/v1\/spaces\/.*[?&]key=/i;
/** A credential in a URL's query string (API keys, signed URLs). */
const URL_QUERY_SECRET =
  /[?&](access_token|token|api_?key|apikey|key|secret|password|sig|signature|x-amz-signature|x-goog-signature|client_secret)=[^&\s]{8,}/i;
/** `AccountKey=…;` and friends in connection strings (Azure, ODBC). */
const CONNECTION_SECRET = /(AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd)=[^;\s]{4,}/i;
/** Token formats beyond the ones system-secrets knows. */
const MORE_TOKENS: readonly RegExp[] = [
  /\b[sr]k_(live|test)_[A-Za-z0-9]{16,}/, // Stripe
  /\bnpm_[A-Za-z0-9]{36}\b/,
  /\bhf_[A-Za-z0-9]{30,}/, // Hugging Face
  /\bSG\.[\w-]{16,}\.[\w-]{16,}/, // SendGrid
  /\bASIA[0-9A-Z]{16}\b/, // AWS temporary keys
  /\bya29\.[\w-]{20,}/, // Google OAuth access tokens
  /\bdop_v1_[a-f0-9]{64}\b/, // DigitalOcean
  /\bshp(at|ss|ca|pa)_[a-fA-F0-9]{32}\b/, // Shopify
  /\bpypi-[\w-]{50,}/,
  /\bBasic\s+[A-Za-z0-9+/=]{12,}/,
];

/** Shannon entropy of `text` in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function charClass(c: string): number {
  if (c >= 'a' && c <= 'z') return 0;
  if (c >= 'A' && c <= 'Z') return 1;
  if (c >= '0' && c <= '9') return 2;
  return 3;
}

/**
 * The share of neighbouring characters of different kinds (lower, upper, digit,
 * other), not counting an upper-case letter followed by lower case (a word start).
 */
function switchRate(text: string): number {
  let switches = 0;
  for (let i = 1; i < text.length; i++) {
    const a = charClass(text[i - 1]!);
    const b = charClass(text[i]!);
    if (a !== b && !(a === 1 && b === 0)) switches++;
  }
  return switches / (text.length - 1);
}

/**
 * A long random-looking token: one word of at least 32 token characters mixing
 * upper case, lower case and digits, with high entropy, and switching between them
 * often (so `MyApplicationName2024ReleaseBuild` is a name, not a token). Hex-only
 * values (hashes, commit ids), UUIDs and paths do not qualify.
 */
export function looksLikeToken(value: string): boolean {
  const v = value.trim();
  if (v.length < 32 || v.length > 4096) return false;
  if (!/^[A-Za-z0-9+/=_.~-]+$/.test(v) || /^[./~]/.test(v)) return false;
  if (!/[a-z]/.test(v) || !/[A-Z]/.test(v) || !/[0-9]/.test(v)) return false;
  return entropy(v) >= 4.2 && switchRate(v) >= 0.3;
}

/** Why `value` looks like a credential, or undefined. */
export function secretValueKind(value: string): string | undefined {
  if (URL_PASSWORD.test(value)) return 'a URL with a password';
  if (URL_TOKEN_USER.test(value)) return 'a URL with a token';
  if (WEBHOOK_URL.test(value)) return 'a webhook URL';
  if (URL_QUERY_SECRET.test(value)) return 'a URL with a credential in its query';
  if (CONNECTION_SECRET.test(value)) return 'a connection string with a key or password';
  if ([...SECRET_VALUE_PATTERNS, ...MORE_TOKENS].some((pattern) => pattern.test(value)))
    return 'a known token format';
  if (looksLikeToken(value)) return 'a high-entropy token';
  return undefined;
}

/** Configured secret values shorter than this are not matched (too likely to be a coincidence). */
const MIN_CONFIGURED_VALUE = 8;

/**
 * Why the variable would be dropped, or undefined when it passes. The allow-list
 * is checked first: an explicitly allowed name always passes.
 */
export function scrubReason(name: string, value: string, opts: EnvScrubOptions = {}): string | undefined {
  if (opts.enabled === false) return undefined;
  if (allowed(name, [...DEFAULT_ENV_ALLOW, ...(opts.allow ?? [])])) return undefined;
  if (looksSecret(name)) return 'its name looks secret';
  if (ALWAYS_KEPT.test(name)) return undefined;
  if (opts.names?.includes(name)) return 'Tea is configured with it';
  const configured = (opts.values ?? []).some((v) => v.length >= MIN_CONFIGURED_VALUE && value.includes(v));
  if (configured) return 'it holds a secret Tea is configured with';
  const kind = secretValueKind(value);
  return kind === undefined ? undefined : `its value looks like ${kind}`;
}

/** A copy of `env` without secret-looking variables (unless allowed or scrubbing is off). */
export function scrubEnv(env: NodeJS.ProcessEnv, opts: EnvScrubOptions = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (scrubReason(name, value, opts) !== undefined) continue;
    out[name] = value;
  }
  return out;
}
