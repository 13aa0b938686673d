/**
 * The MCP panel: each configured server with its status, tools, resources (each
 * readable in place) and prompts (each filled in from a small form and put into the
 * composer, to be sent like a typed prompt).
 */
import type { Api } from './api.js';
import { append, byId, clear, h, toast } from './dom.js';

interface PromptArg {
  name: string;
  description?: string;
  required: boolean;
}
interface McpServerView {
  name: string;
  transport: string;
  status: string;
  error: string | null;
  tools: string[];
  resources: Array<{ uri: string; name: string; description?: string }>;
  resource_templates: Array<{ uriTemplate: string; name: string; description?: string }>;
  prompts: Array<{ name: string; description?: string; arguments: PromptArg[] }>;
}

export class McpPanel {
  private readonly list = byId('mcp-list');
  private generation = 0;

  constructor(private readonly api: Api) {}

  async refresh(): Promise<void> {
    const mine = ++this.generation;
    clear(this.list);
    append(this.list, h('li', { class: 'muted', 'data-testid': 'mcp-loading' }, 'Starting the servers…'));
    let servers: McpServerView[];
    try {
      servers = (await this.api.json<{ data: McpServerView[] }>('GET', '/v1/mcp/servers')).data;
    } catch (e) {
      if (mine === this.generation) toast(`MCP: ${(e as Error).message}`, 'error');
      return;
    }
    if (mine !== this.generation) return;
    clear(this.list);
    if (servers.length === 0) {
      append(
        this.list,
        h(
          'li',
          { class: 'muted', 'data-testid': 'mcp-empty' },
          'No MCP servers are configured (mcp_servers in config.yaml).',
        ),
      );
      return;
    }
    for (const s of servers) append(this.list, this.server(s));
  }

  private server(s: McpServerView): HTMLElement {
    const prefix = `mcp__${s.name}__`;
    const tools = s.tools.map((t) => (t.startsWith(prefix) ? t.slice(prefix.length) : t));
    const item = h(
      'li',
      { class: 'mcp-server', 'data-testid': 'mcp-server', 'data-name': s.name },
      h(
        'div',
        { class: 'mcp-head' },
        h('strong', {}, s.name),
        ` ${s.transport} · `,
        h('span', { 'data-testid': 'mcp-status' }, s.status),
      ),
      s.error ? h('p', { class: 'error', 'data-testid': 'mcp-error' }, s.error) : null,
      h('p', { 'data-testid': 'mcp-tools' }, `Tools (${tools.length}): ${tools.join(', ') || 'none'}`),
    );
    if (s.resources.length || s.resource_templates.length) {
      const ul = h('ul', { class: 'mcp-resources' });
      for (const r of s.resources) {
        const view = h('pre', { class: 'mcp-content', 'data-testid': 'mcp-resource-text', hidden: true });
        const read = h('button', { class: 'small', 'data-testid': 'mcp-read' }, 'Read');
        read.addEventListener('click', () => void this.read(s.name, r.uri, view));
        append(
          ul,
          h(
            'li',
            { 'data-testid': 'mcp-resource', 'data-uri': r.uri },
            h('code', {}, r.uri),
            ` ${r.name}${r.description ? ` — ${r.description}` : ''} `,
            read,
            view,
          ),
        );
      }
      for (const t of s.resource_templates)
        append(
          ul,
          h('li', { 'data-testid': 'mcp-template' }, h('code', {}, t.uriTemplate), ` ${t.name} (template)`),
        );
      append(item, h('h4', {}, 'Resources'), ul);
    }
    if (s.prompts.length) {
      const ul = h('ul', { class: 'mcp-prompts' });
      for (const p of s.prompts) append(ul, this.prompt(s.name, p));
      append(item, h('h4', {}, 'Prompts'), ul);
    }
    return item;
  }

  private prompt(server: string, p: McpServerView['prompts'][number]): HTMLElement {
    const inputs = p.arguments.map((a) =>
      h('input', {
        type: 'text',
        name: a.name,
        placeholder: `${a.name}${a.required ? '' : ' (optional)'}`,
        'aria-required': a.required ? 'true' : undefined,
        'aria-label': a.description ?? a.name,
        'data-testid': 'mcp-prompt-arg',
      }),
    );
    const use = h('button', { class: 'small', 'data-testid': 'mcp-use-prompt' }, 'Use');
    use.addEventListener('click', () => {
      // Required arguments are checked here, so the server is not asked with one missing.
      const missing = p.arguments.filter((a, i) => a.required && !inputs[i]!.value.trim());
      if (missing.length > 0) {
        inputs[p.arguments.indexOf(missing[0]!)]!.focus();
        toast(`Prompt "${p.name}" needs ${missing.map((a) => a.name).join(', ')}`, 'error');
        return;
      }
      void this.use(server, p.name, inputs);
    });
    return h(
      'li',
      { 'data-testid': 'mcp-prompt', 'data-name': p.name },
      h('code', {}, p.name),
      p.description ? ` — ${p.description} ` : ' ',
      ...inputs,
      use,
    );
  }

  private async read(server: string, uri: string, view: HTMLElement): Promise<void> {
    try {
      const r = await this.api.json<{ text: string }>(
        'GET',
        `/v1/mcp/servers/${encodeURIComponent(server)}/resource?uri=${encodeURIComponent(uri)}`,
      );
      view.textContent = r.text || '(empty)';
      view.hidden = false;
    } catch (e) {
      toast(`MCP: ${(e as Error).message}`, 'error');
    }
  }

  private async use(server: string, name: string, inputs: HTMLInputElement[]): Promise<void> {
    const args: Record<string, string> = {};
    for (const i of inputs) if (i.value.trim()) args[i.name] = i.value.trim();
    try {
      const r = await this.api.json<{ text: string }>(
        'POST',
        `/v1/mcp/servers/${encodeURIComponent(server)}/prompts/${encodeURIComponent(name)}`,
        { arguments: args },
      );
      const input = byId<HTMLTextAreaElement>('prompt-input');
      input.value = r.text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.focus();
      toast(`Prompt "${name}" is in the composer: send it when ready.`);
    } catch (e) {
      toast(`MCP: ${(e as Error).message}`, 'error');
    }
  }
}
