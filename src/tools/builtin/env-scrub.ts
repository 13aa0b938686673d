/**
 * Environment scrubbing for the programs the agent runs: variables whose names look
 * like secrets are not passed on, so a command (or a script it downloads) cannot
 * read the user's API keys from its environment.
 */

/** Names that look secret. */
export const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|AUTH|COOKIE)/i;

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
];

/**
 * Passed through by default although the name matches: `SSH_AUTH_SOCK` is the path of
 * the ssh agent's socket (not a key), and without it `git` over ssh stops working.
 */
export const DEFAULT_ENV_ALLOW: readonly string[] = ['SSH_AUTH_SOCK'];

export interface EnvScrubOptions {
  /** Scrub at all (default true). */
  enabled?: boolean;
  /**
   * Names that always pass through; a trailing `*` matches a prefix (`MY_APP_*`).
   * Added to `DEFAULT_ENV_ALLOW`.
   */
  allow?: readonly string[];
}

function allowed(name: string, allow: readonly string[]): boolean {
  return allow.some((entry) => (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry));
}

/** True when `name` would be dropped (ignoring the allow-list). */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name) || /^AWS_/i.test(name) || MODEL_KEY_NAMES.includes(name.toUpperCase());
}

/** A copy of `env` without secret-looking variables (unless allowed or scrubbing is off). */
export function scrubEnv(env: NodeJS.ProcessEnv, opts: EnvScrubOptions = {}): NodeJS.ProcessEnv {
  const scrub = opts.enabled !== false;
  const allow = [...DEFAULT_ENV_ALLOW, ...(opts.allow ?? [])];
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (scrub && looksSecret(name) && !allowed(name, allow)) continue;
    out[name] = value;
  }
  return out;
}
