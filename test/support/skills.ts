/**
 * Skills for tests and benches: twenty real-looking skills (the kind people install
 * from public skill collections, descriptions written the way those are: what the
 * skill does, then when to use it), and helpers that write skill folders.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface SkillSpec {
  name: string;
  description: string;
  body?: string;
  /** More frontmatter lines, as written. */
  extra?: string;
}

export const TWENTY_SKILLS: readonly SkillSpec[] = [
  {
    name: 'pdf',
    description:
      'Read, create and change PDF files: extract text and tables, merge or split documents, rotate pages, add watermarks, fill in PDF forms, encrypt or decrypt, and OCR scanned pages. Use whenever the user mentions a .pdf file or wants one produced.',
  },
  {
    name: 'docx',
    description:
      'Create and edit Word documents (.docx) with headings, tables, images, tracked changes and comments; convert them to and from Markdown. Use when the user asks for a report, letter or memo as a Word file, or hands you a .docx to revise.',
  },
  {
    name: 'xlsx',
    description:
      'Work with spreadsheets: read and write .xlsx and .csv files, keep formulas and formatting, build pivot-style summaries and charts, clean messy columns. Use when the task involves Excel workbooks, CSV exports or tabular data in files.',
  },
  {
    name: 'pptx',
    description:
      'Build and edit PowerPoint slide decks (.pptx): layouts, speaker notes, charts and images, consistent theming across slides. Use when the user wants a presentation, pitch deck or slides, or gives you a .pptx to update.',
  },
  {
    name: 'skill-creator',
    description:
      'Guide for writing a new Agent Skill or improving an existing one: folder layout, SKILL.md frontmatter, concise instructions, bundled scripts and references, and testing the skill on sample tasks. Use when the user wants to create, update or package a skill.',
  },
  {
    name: 'mcp-builder',
    description:
      'Design and implement Model Context Protocol (MCP) servers in TypeScript or Python: tool schemas, resources, transports (stdio, streamable HTTP), error handling and evaluation. Use when building an MCP server to connect a model to an outside API or service.',
  },
  {
    name: 'webapp-testing',
    description:
      'Test local web applications in a real browser with Playwright: start the dev server, click through flows, check rendered output, capture screenshots and browser console logs. Use when asked to verify frontend behaviour or debug a UI end to end.',
  },
  {
    name: 'frontend-design',
    description:
      'Produce distinctive, production-grade frontend interfaces: page layout, typography, colour, motion and responsive behaviour, avoiding generic looks. Use when the user asks to build or restyle a web page, landing page, dashboard or component.',
  },
  {
    name: 'canvas-design',
    description:
      'Make visual art as PNG or PDF files with code: posters, covers, diagrams and compositions following a short design philosophy first. Use when the user asks for a poster, cover image, infographic or other static visual design.',
  },
  {
    name: 'algorithmic-art',
    description:
      'Generative art with p5.js: seeded randomness, flow fields, particle systems and interactive parameter controls, delivered as a self-contained HTML page. Use when the user asks for generative, procedural or algorithmic art.',
  },
  {
    name: 'brand-guidelines',
    description:
      "Apply the company's official brand colours, fonts and logo rules to documents, slides and web pages. Use when an artifact must follow brand guidelines or look on-brand.",
  },
  {
    name: 'internal-comms',
    description:
      'Write internal communications in the house style: status reports, leadership updates, newsletters, incident notices and FAQs. Use when asked to draft an internal announcement, weekly update or team newsletter.',
  },
  {
    name: 'slack-gif-creator',
    description:
      'Create small animated GIFs tuned for Slack (size, frame rate, colour limits) from text, shapes or images, with validation of the output. Use when the user wants an animated GIF or emoji for Slack.',
  },
  {
    name: 'theme-factory',
    description:
      'A set of ready colour and font themes for slides, documents, reports and HTML pages, plus a way to generate a new theme on the fly. Use when styling an artifact with a coherent theme or palette.',
  },
  {
    name: 'web-artifacts-builder',
    description:
      'Build elaborate single-file HTML artifacts with React, Tailwind CSS and shadcn/ui components, bundled into one file. Use for complex interactive artifacts that need state management, routing or many components.',
  },
  {
    name: 'doc-coauthoring',
    description:
      'A structured workflow for writing documentation together with the user: gather context, outline, draft section by section, then review with a fresh reader in mind. Use for design docs, proposals, specs and RFCs.',
  },
  {
    name: 'release-notes',
    description:
      'Write release notes and changelog entries from git history: group commits by type, call out breaking changes and migrations, link issues. Use when preparing a release, tagging a version or updating CHANGELOG.md.',
  },
  {
    name: 'sql-migrations',
    description:
      'Plan and write safe database schema migrations for PostgreSQL and SQLite: reversible steps, backfills in batches, index creation without long locks, and a rollback plan. Use when changing a database schema or writing a migration.',
  },
  {
    name: 'incident-postmortem',
    description:
      'Write a blameless incident postmortem: timeline from logs and chat, impact, root cause, contributing factors and follow-up actions with owners. Use after an outage or production incident.',
  },
  {
    name: 'api-docs',
    description:
      'Write and check reference documentation for HTTP APIs: OpenAPI descriptions, endpoint pages with request and response examples, error tables and authentication notes. Use when documenting a REST API or reviewing API docs.',
  },
];

/** The text of a SKILL.md for `spec`. */
export function skillText(spec: SkillSpec): string {
  const body = spec.body ?? `# ${spec.name}\n\nFollow these steps.\n`;
  return `---\nname: ${spec.name}\ndescription: ${JSON.stringify(spec.description)}\n${spec.extra ?? ''}---\n\n${body}`;
}

/** Writes each skill as `<dir>/<name>/SKILL.md`; returns the folders. */
export function writeSkills(dir: string, specs: readonly SkillSpec[]): string[] {
  return specs.map((spec) => {
    const folder = path.join(dir, spec.name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'SKILL.md'), skillText(spec));
    return folder;
  });
}
