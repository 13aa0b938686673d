/**
 * The API token of a server started with TEA_API_TOKEN. It comes from `?token=` on
 * first load (then leaves the address bar) or from the token prompt, and is kept in
 * localStorage (`tea.token`), or in sessionStorage (this tab only) when the user
 * unticks "Remember on this browser". A refused or missing token opens the prompt;
 * requests wait for it and go on with the new token.
 */
import { byId } from './dom.js';

const KEY = 'tea.token';

export function loadToken(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    saveToken(fromUrl, true);
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.toString());
    return fromUrl;
  }
  return sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY);
}

export function saveToken(token: string, remember: boolean): void {
  (remember ? localStorage : sessionStorage).setItem(KEY, token);
  (remember ? sessionStorage : localStorage).removeItem(KEY);
}

/** Why the prompt opens: no token yet, or the server refused the one given. */
export type TokenProblem = 'missing' | 'invalid';

/** Asks the server whether a token is good: null when it is, else why not (in words). */
export type TokenCheck = (token: string) => Promise<string | null>;

export const REFUSED = 'This token was not accepted: check the value of TEA_API_TOKEN where tea serve runs.';

/** The modal token prompt (index.html's #token-dialog). */
export class TokenPrompt {
  private readonly dialog = byId<HTMLDialogElement>('token-dialog');
  private readonly input = byId<HTMLInputElement>('token-input');
  private readonly remember = byId<HTMLInputElement>('token-remember');
  private readonly error = byId('token-error');
  private readonly submit = byId<HTMLButtonElement>('token-submit');
  private pending: ((token: string) => void) | null = null;

  constructor(private readonly check: TokenCheck) {
    byId('token-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.tryToken();
    });
    // Nothing works without the token: the prompt stays until one is accepted.
    this.dialog.addEventListener('cancel', (e) => e.preventDefault());
    this.dialog.addEventListener('close', () => {
      if (this.pending) this.dialog.showModal();
    });
  }

  /** Shows the prompt; resolves with a token the server accepted (already saved). */
  ask(problem: TokenProblem): Promise<string> {
    this.error.textContent =
      problem === 'invalid' ? 'The saved token was not accepted. Enter the current one.' : '';
    this.input.value = '';
    this.submit.disabled = false;
    return new Promise((resolve) => {
      this.pending = resolve;
      if (!this.dialog.open) this.dialog.showModal();
      this.input.focus();
    });
  }

  private async tryToken(): Promise<void> {
    const token = this.input.value.trim();
    if (!token || !this.pending) return;
    this.submit.disabled = true;
    this.error.textContent = '';
    const problem = await this.check(token);
    this.submit.disabled = false;
    if (problem) {
      this.error.textContent = problem;
      this.input.select();
      return;
    }
    saveToken(token, this.remember.checked);
    const resolve = this.pending;
    this.pending = null;
    this.dialog.close();
    resolve(token);
  }
}
