import type { Part, Role } from '../llm/types.js';
import { StoreError } from './errors.js';

const ROLES: ReadonlySet<string> = new Set<Role>(['system', 'user', 'assistant', 'tool']);
const PART_TYPES: ReadonlySet<string> = new Set<Part['type']>([
  'text',
  'image',
  'thinking',
  'tool-call',
  'tool-result',
]);

export function requireText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new StoreError(`${field} must be a non-empty string, got ${describe(value)}`);
  }
  return value;
}

export function optionalText(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new StoreError(`${field} must be a string, got ${describe(value)}`);
  return value;
}

export function requireRole(value: unknown): Role {
  if (typeof value !== 'string' || !ROLES.has(value)) {
    throw new StoreError(`message role must be one of ${[...ROLES].join(', ')}, got ${describe(value)}`);
  }
  return value as Role;
}

export function requireCount(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new StoreError(`${field} must be a finite number >= 0, got ${describe(value)}`);
  }
  return value;
}

export function requireInteger(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new StoreError(`${field} must be an integer >= 0, got ${describe(value)}`);
  }
  return value;
}

/** A non-negative integer, or undefined when absent. */
export function optionalIndex(value: unknown, field: string): number | undefined {
  return value === undefined ? undefined : requireInteger(value, field);
}

/** Checks the part list's shape (an array of known part kinds) and serializes it. */
export function encodeParts(parts: unknown): string {
  if (!Array.isArray(parts)) throw new StoreError(`message parts must be an array, got ${describe(parts)}`);
  parts.forEach((part: unknown, index) => {
    const type = typeof part === 'object' && part !== null && 'type' in part ? part.type : undefined;
    if (typeof type !== 'string' || !PART_TYPES.has(type)) {
      throw new StoreError(
        `message part ${index} has unknown type ${describe(type)}; expected one of ${[...PART_TYPES].join(', ')}`,
      );
    }
  });
  return toJson(parts, 'message parts');
}

export function decodeParts(text: string, messageId: number): Part[] {
  const value = fromJson(text, `parts of message ${messageId}`);
  if (!Array.isArray(value))
    throw new StoreError(`parts of message ${messageId} are not an array`, 'corrupt');
  return value as Part[];
}

export function encodeArgs(args: unknown, callId: string): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new StoreError(`args of tool call ${callId} must be an object, got ${describe(args)}`);
  }
  return toJson(args, `args of tool call ${callId}`);
}

export function decodeArgs(text: string, callId: string): Record<string, unknown> {
  const value = fromJson(text, `args of tool call ${callId}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StoreError(`args of tool call ${callId} are not an object`, 'corrupt');
  }
  return value as Record<string, unknown>;
}

function toJson(value: unknown, what: string): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw new StoreError(`${what} cannot be serialized as JSON: ${(err as Error).message}`, 'invalid', {
      cause: err,
    });
  }
}

function fromJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StoreError(`${what} hold invalid JSON in the database`, 'corrupt', { cause: err });
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}
