/**
 * The parts a user tool's result may carry besides its text, checked: `images`,
 * `audio` and embedded `resources`. Each bad entry is a `ToolError` naming the field,
 * its index and the shape to use, so the agent that wrote the tool can fix it.
 * User resources (resources.ts) check their contents with `resourceContents`.
 */
import type { ImagePart } from '../../llm/types.js';
import { type AudioPart, type ResourcePart, ToolError } from '../types.js';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** The largest base64 string of one image, clip or binary resource. */
export const MAX_BINARY_CHARS = 8 * 1024 * 1024;
/** The largest text of one embedded resource. */
export const MAX_RESOURCE_TEXT = 1024 * 1024;
const MAX_PARTS = 16;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;
/** A URI with a scheme (`test://x`, `file:///a`, `urn:x`), at most 2 048 characters, no white space. */
const URI = /^[a-z][a-z0-9+.-]*:[^\s]{1,2040}$/i;

const IMAGE_SHAPE = "images: [{ data: '<base64>', mediaType: 'image/png' }]";
const AUDIO_SHAPE = "audio: [{ data: '<base64>', mediaType: 'audio/wav' }]";
const RESOURCE_SHAPE =
  "resources: [{ uri: 'scheme://…', mimeType?: 'text/plain', text: '…' } | { uri, mimeType?, blob: '<base64>' }]";

function isBase64(data: unknown): data is string {
  return typeof data === 'string' && data.length > 0 && data.length <= MAX_BINARY_CHARS && BASE64.test(data);
}

function listOf(name: string, field: string, value: unknown, shape: string): unknown[] {
  if (!Array.isArray(value) || value.length > MAX_PARTS)
    throw new ToolError(
      `${name} returned bad ${field}: not a list of at most ${MAX_PARTS} ${field === 'audio' ? 'clips' : field}`,
      shape,
    );
  return value;
}

function imagesOf(name: string, value: unknown): ImagePart[] {
  return listOf(name, 'images', value, IMAGE_SHAPE).map((image, i) => {
    const { data, mediaType } = (image ?? {}) as { data?: unknown; mediaType?: unknown };
    const bad = (why: string) =>
      new ToolError(`${name} returned bad images: images[${i}].${why}`, IMAGE_SHAPE);
    if (typeof mediaType !== 'string' || !IMAGE_TYPES.has(mediaType))
      throw bad('mediaType must be image/png, image/jpeg, image/gif or image/webp');
    if (!isBase64(data)) throw bad(`data must be base64 of at most ${MAX_BINARY_CHARS} characters`);
    return { type: 'image' as const, mediaType, data };
  });
}

function audioOf(name: string, value: unknown): AudioPart[] {
  return listOf(name, 'audio', value, AUDIO_SHAPE).map((clip, i) => {
    const { data, mediaType } = (clip ?? {}) as { data?: unknown; mediaType?: unknown };
    const bad = (why: string) => new ToolError(`${name} returned bad audio: audio[${i}].${why}`, AUDIO_SHAPE);
    if (typeof mediaType !== 'string' || !mediaType.startsWith('audio/') || !MEDIA_TYPE.test(mediaType))
      throw bad('mediaType must be an audio type such as audio/wav or audio/mpeg');
    if (!isBase64(data)) throw bad(`data must be base64 of at most ${MAX_BINARY_CHARS} characters`);
    return { type: 'audio' as const, mediaType, data };
  });
}

/**
 * One resource's contents (`{ uri, mimeType?, text | blob }`), checked; `where` names
 * it in the error (`resources[0]`). A `blob` may be base64 or bytes (a Uint8Array).
 */
export function resourceContents(value: unknown, bad: (why: string) => Error): ResourcePart {
  if (typeof value !== 'object' || value === null) throw bad('is not an object');
  const { uri, mimeType, text, blob } = value as Record<string, unknown>;
  if (typeof uri !== 'string' || !URI.test(uri))
    throw bad('uri must be a URI with a scheme (e.g. test://name), at most 2 048 characters');
  if (mimeType !== undefined && (typeof mimeType !== 'string' || !MEDIA_TYPE.test(mimeType)))
    throw bad('mimeType must be a media type such as text/plain');
  const type = mimeType === undefined ? {} : { mimeType };
  if (text !== undefined && blob !== undefined) throw bad('has both text and blob; give one');
  if (typeof text === 'string') {
    if (text.length > MAX_RESOURCE_TEXT) throw bad(`text is longer than ${MAX_RESOURCE_TEXT} characters`);
    return { type: 'resource', uri, ...type, text };
  }
  const base64 = blob instanceof Uint8Array ? Buffer.from(blob).toString('base64') : blob;
  if (!isBase64(base64))
    throw bad(`needs text (a string) or blob (base64 or bytes, at most ${MAX_BINARY_CHARS} characters)`);
  return { type: 'resource', uri, ...type, blob: base64 };
}

function resourcesOf(name: string, value: unknown): ResourcePart[] {
  return listOf(name, 'resources', value, RESOURCE_SHAPE).map((r, i) =>
    resourceContents(
      r,
      (why) => new ToolError(`${name} returned bad resources: resources[${i}] ${why}`, RESOURCE_SHAPE),
    ),
  );
}

/** The checked parts of a result; fields that are absent or empty are left out. */
export function resultParts(
  name: string,
  given: { images?: unknown; audio?: unknown; resources?: unknown },
): { images?: ImagePart[]; audio?: AudioPart[]; resources?: ResourcePart[] } {
  const images = given.images === undefined ? [] : imagesOf(name, given.images);
  const audio = given.audio === undefined ? [] : audioOf(name, given.audio);
  const resources = given.resources === undefined ? [] : resourcesOf(name, given.resources);
  return {
    ...(images.length ? { images } : {}),
    ...(audio.length ? { audio } : {}),
    ...(resources.length ? { resources } : {}),
  };
}
