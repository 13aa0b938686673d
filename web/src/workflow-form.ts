/**
 * The small form that starts a workflow: one field per declared input (text, a
 * number, a checkbox, a choice, or JSON for lists and objects), defaults filled in,
 * required ones marked. Values go to the server as typed; it checks them again.
 */
import { h } from './dom.js';
import type { WorkflowDef, WorkflowInput } from './workflow-types.js';

/** The input's control: named by the input, tagged for tests as `workflow-input-<name>`. */
function control(input: WorkflowInput): HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement {
  const common = {
    name: input.name,
    'data-testid': `workflow-input-${input.name}`,
    'data-type': input.type ?? 'any',
  };
  if (input.enum) {
    const select = h('select', common);
    if (!input.required) select.appendChild(h('option', { value: '' }, '(default)'));
    for (const v of input.enum) select.appendChild(h('option', { value: JSON.stringify(v) }, String(v)));
    if (input.default !== undefined) select.value = JSON.stringify(input.default);
    return select;
  }
  if (input.type === 'boolean') {
    const box = h('input', { ...common, type: 'checkbox' });
    box.checked = input.default === true;
    return box;
  }
  if (input.type === 'number' || input.type === 'integer') {
    const num = h('input', {
      ...common,
      type: 'number',
      step: input.type === 'integer' ? '1' : 'any',
      required: input.required,
    });
    if (typeof input.default === 'number') num.value = String(input.default);
    return num;
  }
  if (input.type === 'array' || input.type === 'object' || input.type === null) {
    const area = h('textarea', {
      ...common,
      rows: '2',
      placeholder: input.type === 'array' ? '["…"] (JSON)' : 'JSON',
      required: input.required,
    });
    if (input.default !== undefined) area.value = JSON.stringify(input.default);
    return area;
  }
  const text = h('input', { ...common, type: 'text', required: input.required, autocomplete: 'off' });
  if (typeof input.default === 'string') text.value = input.default;
  return text;
}

/** The form for `def`; `start` gets the input (or the first problem, in words). */
export function workflowForm(
  def: WorkflowDef,
  start: (input: Record<string, unknown>) => Promise<void>,
): HTMLFormElement {
  // Our own checks, with messages in the panel (the browser's bubbles would hide them).
  const form = h('form', { class: 'workflow-form', 'data-testid': 'workflow-form', novalidate: true });
  const controls = def.inputs.map((input) => {
    const field = control(input);
    const name = h(
      'span',
      { class: 'workflow-input-name' },
      input.name,
      input.required ? h('span', { class: 'required', title: 'required' }, ' *') : null,
    );
    const label = h(
      'label',
      { class: input.type === 'boolean' ? 'check' : 'field' },
      input.type === 'boolean' ? field : null,
      name,
      input.type === 'boolean' ? null : field,
    );
    form.appendChild(label);
    if (input.description) form.appendChild(h('p', { class: 'hint' }, input.description));
    return { input, field };
  });
  if (def.inputs.length === 0) form.appendChild(h('p', { class: 'hint' }, 'It takes no input.'));
  const submit = h(
    'button',
    { type: 'submit', class: 'primary small', 'data-testid': 'workflow-start' },
    'Start',
  );
  const problem = h('p', { class: 'form-error', role: 'alert', 'data-testid': 'workflow-form-error' });
  form.append(problem, h('div', { class: 'row' }, submit));
  form.addEventListener('input', () => {
    problem.textContent = '';
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    problem.textContent = '';
    const input: Record<string, unknown> = {};
    for (const { input: spec, field } of controls) {
      const read = fieldValue(spec, field);
      if ('error' in read) {
        problem.textContent = read.error;
        field.focus();
        return;
      }
      if (read.value !== undefined) input[spec.name] = read.value;
    }
    submit.disabled = true;
    void start(input).finally(() => {
      submit.disabled = false;
    });
  });
  return form;
}

/** A field's value as the input's type; undefined leaves it to the default. */
function fieldValue(
  spec: WorkflowInput,
  field: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
): { value: unknown } | { error: string } {
  if (field instanceof HTMLInputElement && field.type === 'checkbox') return { value: field.checked };
  const raw = field.value.trim();
  if (raw === '') {
    return spec.required ? { error: `${spec.name} is required` } : { value: undefined };
  }
  if (field instanceof HTMLSelectElement) return { value: JSON.parse(raw) as unknown };
  if (spec.type === 'number' || spec.type === 'integer') {
    const n = Number(raw);
    if (!Number.isFinite(n) || (spec.type === 'integer' && !Number.isInteger(n)))
      return { error: `${spec.name} must be ${spec.type === 'integer' ? 'a whole number' : 'a number'}` };
    return { value: n };
  }
  if (spec.type === 'array' || spec.type === 'object' || spec.type === null) {
    try {
      return { value: JSON.parse(raw) as unknown };
    } catch {
      // Not JSON: as text (the server says whether it fits).
      if (spec.type !== null)
        return {
          error: `${spec.name} must be JSON (${spec.type === 'array' ? '["a", "b"]' : '{"key": "value"}'})`,
        };
      return { value: raw };
    }
  }
  return { value: field.value };
}
