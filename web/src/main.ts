/** Entry point of the web UI served by `tea serve`. */
import { Api } from './api.js';
import { App } from './app.js';
import { applyStoredLook } from './settings.js';
import { loadToken, TokenPrompt } from './token.js';

applyStoredLook();
// Relative to the page, so the UI also works behind a proxy under a path prefix.
const base = `${window.location.origin}${window.location.pathname.replace(/\/[^/]*$/, '')}`;
const api = new Api(base, loadToken());
const prompt = new TokenPrompt((token) => api.checkToken(token));
api.onUnauthorized = (problem) => prompt.ask(problem);
const app = new App(api);
void app.start();
