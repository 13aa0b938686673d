/** Recognising credentials so system tools never hand them to the model. */

/** Variable or option names that suggest a credential. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|AUTH|COOKIE/i;

/** Values that look like a credential whatever they are called. */
const SECRET_VALUES: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_\w{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/g,
  /\bBearer\s+\S{8,}/gi,
];

/** The same patterns without the global flag, for a plain yes/no test. */
export const SECRET_VALUE_PATTERNS: readonly RegExp[] = SECRET_VALUES.map(
  (pattern) => new RegExp(pattern.source, pattern.flags.replace('g', '')),
);

/** `scheme://user:password@host`: the password part. */
const URL_PASSWORD = /(:\/\/[^/\s:@]+:)([^/\s@]+)(@)/g;
/** `API_TOKEN=abc`, `"password": "abc"`, `--api-key=abc`. */
const NAMED_VALUE =
  /([\w.-]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)[\w.-]*["']?\s*[=:]\s*["']?)([^\s"',;}&]+)/gi;
/** `--password abc`, `-token abc`. */
const FLAG_VALUE = /(\s--?[\w-]*(?:key|token|secret|password|passwd)[\w-]*\s+)(?!-)(\S+)/gi;

export const REDACTED = '[redacted]';

export function looksSecret(name: string, value: string | undefined): boolean {
  if (SECRET_NAME.test(name)) return true;
  if (value === undefined) return false;
  URL_PASSWORD.lastIndex = 0;
  return (
    URL_PASSWORD.test(value) ||
    SECRET_VALUES.some((pattern) => {
      pattern.lastIndex = 0;
      return pattern.test(value);
    })
  );
}

/** `text` with anything that looks like a credential replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text.replace(URL_PASSWORD, `$1${REDACTED}$3`);
  out = out.replace(NAMED_VALUE, `$1${REDACTED}`);
  out = ` ${out}`.replace(FLAG_VALUE, `$1${REDACTED}`).slice(1);
  for (const pattern of SECRET_VALUES) out = out.replace(pattern, REDACTED);
  return out;
}
