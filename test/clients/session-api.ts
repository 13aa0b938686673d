/** The session API of a running `tea serve`, as the client tests read it. */

/** The ids of the stored sessions (newest first). */
export async function sessionIds(url: string): Promise<string[]> {
  const res = await fetch(`${url}/v1/sessions?limit=100`);
  return ((await res.json()) as { data: { id: string }[] }).data.map((s) => s.id);
}

/** role:text of a stored session's messages. */
export async function stored(url: string, id: string): Promise<string[]> {
  const res = await fetch(`${url}/v1/sessions/${id}/messages`);
  const data = ((await res.json()) as { data: { role: string; parts: { type: string; text?: string }[] }[] })
    .data;
  return data.map((m) => `${m.role}:${m.parts.map((p) => p.text ?? '').join('')}`);
}

/** POSTs `body` as JSON. */
export function post(url: string, p: string, body: unknown): Promise<Response> {
  return fetch(`${url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
