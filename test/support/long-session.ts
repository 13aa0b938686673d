/**
 * A long scripted session for the context engine: many turns of mixed English and
 * Chinese, large tool outputs now and then, and "needles" (facts stated once) that
 * later questions ask about. Used by the long-session test and the bench.
 */
import * as z from 'zod';
import { defineTool, type Tool } from '../../src/tools/types.js';
import type { ReplyBuilder } from './script.js';
import { reply } from './script.js';

export interface Needle {
  turn: number;
  key: string;
  value: string;
}

const TOPICS = [
  'parser',
  'database migration',
  '数据库迁移',
  'login page',
  '登录模块',
  'cache layer',
  'build script',
  '日志系统',
];

/** The needles: a fact with a unique key and value, planted at evenly spaced turns. */
export function needles(turns: number, count = 20): Needle[] {
  return Array.from({ length: count }, (_, i) => ({
    turn: Math.floor(((i + 0.5) * turns * 0.8) / count),
    key: `service-${String.fromCharCode(97 + i)}${i * 7 + 11}`,
    value: `PORT-${4000 + i * 13}`,
  }));
}

export interface Turn {
  input: string;
  replies: ReplyBuilder[];
}

/** Turn `i` of the session (needles are stated at their turn). */
export function turnAt(i: number, planted: readonly Needle[]): Turn {
  const needle = planted.find((n) => n.turn === i);
  if (needle) {
    return {
      input: `Remember this for later: the port of ${needle.key} is ${needle.value}.`,
      replies: [reply().text(`Noted: ${needle.key} uses ${needle.value}.`)],
    };
  }
  const topic = TOPICS[i % TOPICS.length]!;
  const input = `Turn ${i}: please review the ${topic} work again and tell me what changed in src/mod${i % 17}.ts. 请检查${topic}的进度。`;
  if (i % 25 === 7) {
    return {
      input,
      replies: [
        reply().toolCall('big_output', { lines: 3000, tag: `t${i}` }),
        reply().text(`The ${topic} output for turn ${i} looks fine; nothing changed in src/mod${i % 17}.ts.`),
      ],
    };
  }
  return {
    input,
    replies: [
      reply().text(
        `Turn ${i}: reviewed the ${topic} work. ${'Everything is consistent with the plan and the tests pass. '.repeat(4)}已完成检查。`,
      ),
    ],
  };
}

/** A tool that prints many lines (a big log or listing). */
export function bigOutputTool(): Tool {
  return defineTool({
    name: 'big_output',
    description: 'Prints a long numbered listing (test tool).',
    parameters: z.object({ lines: z.number().int(), tag: z.string() }),
    category: 'test',
    keywords: ['listing'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    execute: async (args) =>
      Array.from({ length: args.lines }, (_, i) => `${args.tag} line ${i + 1}: some log text here`).join(
        '\n',
      ),
  });
}
