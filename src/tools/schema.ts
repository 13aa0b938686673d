/**
 * Turning a tool's zod schema into the JSON schema a model reads. Both OpenAI and
 * Anthropic want an object schema with `type`, `properties` and `required`.
 */
import type { ToolSpec } from '../llm/types.js';
import type { Tool } from './types.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Drops noise zod adds that models do not need (safe-integer bounds, non-empty strings). */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!isRecord(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    // "not empty" is checked on arrival; the model does not need it spelled out.
    if (key === 'minLength' && value === 1) continue;
    out[key] = tidy(value);
  }
  return out;
}

/** The JSON schema for a tool's parameters; throws when it is not an object schema. */
export function parametersSchema(tool: Pick<Tool, 'name' | 'parameters'>): Json {
  let raw: unknown;
  try {
    // The schema's own method: this module loads no zod code (a run that calls no tool needs none).
    raw = tool.parameters.toJSONSchema({ io: 'input', unrepresentable: 'any' });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Tool "${tool.name}": its parameters cannot be expressed as JSON schema: ${detail}`);
  }
  const schema = tidy(raw);
  if (!isRecord(schema) || schema.type !== 'object') {
    throw new Error(`Tool "${tool.name}": parameters must be a z.object(...) schema`);
  }
  const { $schema: _dropped, ...rest } = schema;
  const properties = isRecord(rest.properties) ? rest.properties : {};
  const required = Array.isArray(rest.required) ? rest.required : [];
  return { ...rest, type: 'object', properties, required };
}

/** A tool's raw JSON Schema (MCP) as an object schema with `properties` and `required`. */
function rawSchema(tool: Pick<Tool, 'name'>, raw: Json): Json {
  if (raw.type !== undefined && raw.type !== 'object') {
    throw new Error(`Tool "${tool.name}": inputSchema must be an object schema`);
  }
  const { $schema: _dropped, ...rest } = raw;
  const properties = isRecord(rest.properties) ? rest.properties : {};
  const required = Array.isArray(rest.required) ? rest.required : [];
  return { ...rest, type: 'object', properties, required };
}

export function buildSpec(tool: Tool): ToolSpec {
  const parameters = tool.inputSchema ? rawSchema(tool, tool.inputSchema) : parametersSchema(tool);
  return { name: tool.name, description: tool.description, parameters };
}

function typeLabel(prop: unknown): string {
  if (!isRecord(prop)) return 'any';
  if (Array.isArray(prop.enum)) return prop.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (typeof prop.type === 'string') {
    if (prop.type === 'array' && isRecord(prop.items)) return `${typeLabel(prop.items)}[]`;
    return prop.type;
  }
  if (Array.isArray(prop.type)) return prop.type.join(' | ');
  const union = prop.anyOf ?? prop.oneOf;
  if (Array.isArray(union)) return union.map(typeLabel).join(' | ');
  return 'any';
}

/** `path (string, required), offset (integer), …`: a one-line parameter summary for hints. */
export function summarizeParameters(spec: ToolSpec): string {
  const props = isRecord(spec.parameters.properties) ? spec.parameters.properties : {};
  const required = new Set(Array.isArray(spec.parameters.required) ? spec.parameters.required : []);
  const parts = Object.entries(props).map(
    ([name, prop]) => `${name} (${typeLabel(prop)}${required.has(name) ? ', required' : ''})`,
  );
  return parts.length > 0 ? parts.join(', ') : '(no parameters)';
}
