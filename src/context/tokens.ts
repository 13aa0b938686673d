/**
 * Fast token estimation without a tokenizer, and per-model calibration against
 * the `prompt_tokens` a provider reports. The context builder estimates the whole
 * history on every request, so estimates are cached per (immutable) message.
 */
import type { Message, Part } from '../llm/types.js';
import type { MessageEstimator } from './types.js';

/** Fixed structural cost of one message (role, separators). */
export const MESSAGE_OVERHEAD = 4;
/**
 * Fixed cost of one image, whatever its bytes (base64 is never counted as text):
 * Anthropic bills (width × height) / 750 tokens and scales images down to about
 * 1.15 megapixels, so ~1,600 at most; OpenAI's high detail is up to ~1,100 on gpt-4o
 * (85 per image plus 170 per 512-pixel tile). The larger figure keeps a context of
 * screenshots within the window.
 */
export const IMAGE_TOKENS = 1600;
/** Structural cost of one tool call beyond its name and arguments (id, type, wrappers). */
export const TOOL_CALL_OVERHEAD = 8;
/** Structural cost of one tool result beyond its output (call id, wrappers). */
export const TOOL_RESULT_OVERHEAD = 6;

// Tokens per character, by class. Tuned against BPE tokenizers (cl100k/o200k) on
// prose, code, JSON, logs and Chinese text; see test/context/tokens.test.ts.
const PER_LETTER = 1 / 4.5; // ASCII letters: ~4 chars per token with the space before the word
const PER_DIGIT = 1 / 2.5; // digits: BPE vocabularies split numbers into groups of up to 3
const PER_CJK = 1 / 1.5; // ideographs, kana, hangul
const PER_CJK_PUNCT = 1; // fullwidth punctuation such as ，。：
const PER_PUNCT = 1 / 2; // ASCII punctuation: often merges in pairs (`",`, `();`)
const PER_SPACE = 1 / 6; // a space mostly merges into the following word
const PER_SPACE_RUN = 1 / 16; // further spaces of a run (indentation, padding) merge into few tokens
const PER_NEWLINE = 1 / 2;
const PER_OTHER = 1 / 2; // other scripts (Cyrillic, Greek, accented Latin …) and symbols
const PER_ASTRAL = 1; // emoji and other non-BMP symbols (per code point)

/** CJK ideographs, kana and hangul in the Basic Multilingual Plane. */
function isCjk(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
    (code >= 0x3400 && code <= 0x4dbf) || // extension A
    (code >= 0x3040 && code <= 0x30ff) || // hiragana, katakana
    (code >= 0xac00 && code <= 0xd7af) || // hangul syllables
    (code >= 0x1100 && code <= 0x11ff) || // hangul jamo
    (code >= 0x3130 && code <= 0x318f) || // hangul compatibility jamo
    (code >= 0xf900 && code <= 0xfaff) // compatibility ideographs
  );
}

/** CJK symbols and punctuation, fullwidth forms. */
function isCjkPunct(code: number): boolean {
  return (code >= 0x3000 && code <= 0x303f) || (code >= 0xff00 && code <= 0xffef);
}

/** Texts longer than this are estimated from evenly spread samples (see `estimateText`). */
export const SAMPLE_ABOVE_CHARS = 256 * 1024;
const SAMPLES = 64;
const SAMPLE_CHARS = 2048;

/**
 * Estimated token count of a text: one pass over UTF-16 code units, counting
 * characters by class. Empty text is 0 tokens. A text over SAMPLE_ABOVE_CHARS (a
 * pasted log) is estimated from SAMPLES evenly spread stretches of SAMPLE_CHARS,
 * scaled to its length: a few milliseconds for megabytes, within a few percent.
 */
export function estimateText(text: string): number {
  const length = text.length;
  if (length === 0) return 0;
  if (length <= SAMPLE_ABOVE_CHARS) return Math.max(1, Math.ceil(weigh(text, 0, length)));
  const step = length / SAMPLES;
  let tokens = 0;
  let counted = 0;
  for (let k = 0; k < SAMPLES; k++) {
    const start = Math.floor(k * step);
    const end = Math.min(length, start + SAMPLE_CHARS);
    tokens += weigh(text, start, end);
    counted += end - start;
  }
  return Math.max(1, Math.ceil((tokens * length) / counted));
}

/** Weighted tokens of `text[start, end)`, counting characters by class. */
function weigh(text: string, start: number, end: number): number {
  let letter = 0;
  let digit = 0;
  let cjk = 0;
  let cjkPunct = 0;
  let punct = 0;
  let space = 0;
  let spaceRun = 0;
  let newline = 0;
  let other = 0;
  let astral = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) {
        letter++;
      } else if (code >= 0x30 && code <= 0x39) {
        digit++;
      } else if (code === 0x20 || code === 0x09) {
        const previous = i > 0 ? text.charCodeAt(i - 1) : 0;
        if (previous === 0x20 || previous === 0x09) spaceRun++;
        else space++;
      } else if (code === 0x0a || code === 0x0d) {
        newline++;
      } else {
        punct++;
      }
    } else if (isCjk(code)) {
      cjk++;
    } else if (isCjkPunct(code)) {
      cjkPunct++;
    } else if (code >= 0xd800 && code <= 0xdbff) {
      // A surrogate pair: ideograph extensions B+ live in U+20000–U+3FFFF.
      const codePoint = text.codePointAt(i) ?? code;
      if (codePoint >= 0x20000 && codePoint <= 0x3ffff) cjk++;
      else astral++;
      i++;
    } else {
      other++;
    }
  }
  const tokens =
    letter * PER_LETTER +
    digit * PER_DIGIT +
    cjk * PER_CJK +
    cjkPunct * PER_CJK_PUNCT +
    punct * PER_PUNCT +
    space * PER_SPACE +
    spaceRun * PER_SPACE_RUN +
    newline * PER_NEWLINE +
    other * PER_OTHER +
    astral * PER_ASTRAL;
  return tokens;
}

function estimatePart(part: Part): number {
  switch (part.type) {
    case 'text':
    case 'thinking':
      return estimateText(part.text);
    case 'image':
      return IMAGE_TOKENS;
    case 'tool-call':
      return TOOL_CALL_OVERHEAD + estimateText(part.name) + estimateText(JSON.stringify(part.args));
    case 'tool-result':
      return TOOL_RESULT_OVERHEAD + estimateText(part.output) + (part.images?.length ?? 0) * IMAGE_TOKENS;
  }
}

/** Estimates by message object; messages are treated as immutable. */
const messageCache = new WeakMap<Message, number>();

/**
 * Estimated tokens of one message: a fixed overhead plus its parts. Cached per
 * message object, so re-estimating a long history is cheap; a changed message
 * must be a new object.
 */
export function estimateMessage(message: Message): number {
  const cached = messageCache.get(message);
  if (cached !== undefined) return cached;
  let tokens = MESSAGE_OVERHEAD;
  for (const part of message.parts) tokens += estimatePart(part);
  messageCache.set(message, tokens);
  return tokens;
}

/** Sum of `estimateMessage` over the messages. */
export function estimateMessages(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessage(message);
  return total;
}

export interface CalibratorOptions {
  /** Weight of a new observation in the moving average, in (0, 1]. Default 0.3. */
  alpha?: number;
  /** Lowest factor allowed. Default 0.5. */
  min?: number;
  /** Highest factor allowed. Default 2.0. */
  max?: number;
}

/** The persisted form of a `TokenCalibrator`. */
export interface CalibratorState {
  alpha: number;
  min: number;
  max: number;
  /** Model id → its factor and how many observations shaped it. */
  models: Record<string, { factor: number; samples: number }>;
}

/** Observations with fewer tokens than this (estimated or reported) are ignored as noise. */
export const MIN_CALIBRATION_TOKENS = 50;

function checkNumber(value: unknown, name: string, low: number, high: number, lowOpen = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new TypeError(`TokenCalibrator: ${name} must be a finite number, got ${JSON.stringify(value)}`);
  }
  if (value > high || (lowOpen ? value <= low : value < low)) {
    const range = `${lowOpen ? '(' : '['}${low}, ${high}]`;
    throw new RangeError(`TokenCalibrator: ${name} must be in ${range}, got ${value}`);
  }
  return value;
}

/**
 * Learns, per model, how the provider's reported `prompt_tokens` relate to our
 * estimate: an exponential moving average of reported / estimated, clamped to
 * [min, max]. The first observation of a model sets its factor directly.
 */
export class TokenCalibrator {
  readonly alpha: number;
  readonly min: number;
  readonly max: number;
  private readonly models = new Map<string, { factor: number; samples: number }>();

  constructor(opts: CalibratorOptions = {}) {
    this.alpha = checkNumber(opts.alpha ?? 0.3, 'alpha', 0, 1, true);
    this.min = checkNumber(opts.min ?? 0.5, 'min', 0, Number.MAX_VALUE, true);
    this.max = checkNumber(opts.max ?? 2, 'max', this.min, Number.MAX_VALUE);
  }

  /** The current factor for a model; 1 until it has been observed. */
  factor(model: string): number {
    return this.models.get(model)?.factor ?? 1;
  }

  /** How many observations have shaped a model's factor. */
  samples(model: string): number {
    return this.models.get(model)?.samples ?? 0;
  }

  /**
   * Records one request: `estimated` is our (uncalibrated) estimate of the prompt,
   * `reported` the provider's prompt token count. Tiny or invalid samples are ignored.
   */
  observe(model: string, estimated: number, reported: number): void {
    if (!Number.isFinite(estimated) || !Number.isFinite(reported)) return;
    if (estimated < MIN_CALIBRATION_TOKENS || reported < MIN_CALIBRATION_TOKENS) return;
    const ratio = this.clamp(reported / estimated);
    const entry = this.models.get(model);
    if (!entry) {
      this.models.set(model, { factor: ratio, samples: 1 });
      return;
    }
    entry.factor = this.clamp(entry.factor + this.alpha * (ratio - entry.factor));
    entry.samples++;
  }

  /** A calibrated estimator for one model; it follows later observations. */
  estimator(model: string): MessageEstimator {
    // The model's entry once it exists (observations change it in place): one lookup,
    // not one per message of a long transcript.
    let entry = this.models.get(model);
    return (message) => {
      entry ??= this.models.get(model);
      return Math.ceil(estimateMessage(message) * (entry?.factor ?? 1));
    };
  }

  toJSON(): CalibratorState {
    const models: CalibratorState['models'] = {};
    for (const [model, entry] of this.models) models[model] = { ...entry };
    return { alpha: this.alpha, min: this.min, max: this.max, models };
  }

  /** Restores a calibrator saved with `toJSON()`; malformed state throws a specific error. */
  static from(json: unknown): TokenCalibrator {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw new TypeError('TokenCalibrator.from: expected an object saved by toJSON()');
    }
    const state = json as Partial<Record<keyof CalibratorState, unknown>>;
    const calibrator = new TokenCalibrator({
      alpha: state.alpha as number | undefined,
      min: state.min as number | undefined,
      max: state.max as number | undefined,
    });
    const models = state.models ?? {};
    if (typeof models !== 'object' || models === null || Array.isArray(models)) {
      throw new TypeError('TokenCalibrator.from: "models" must be an object of { factor, samples }');
    }
    for (const [model, value] of Object.entries(models)) {
      const entry = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      const factor = checkNumber(entry.factor, `models["${model}"].factor`, calibrator.min, calibrator.max);
      const samples = checkNumber(
        entry.samples ?? 1,
        `models["${model}"].samples`,
        0,
        Number.MAX_SAFE_INTEGER,
      );
      calibrator.models.set(model, { factor, samples: Math.floor(samples) });
    }
    return calibrator;
  }

  private clamp(value: number): number {
    return Math.min(this.max, Math.max(this.min, value));
  }
}
