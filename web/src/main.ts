/** Entry point of the web UI served by `tea serve`. */
import { Api, loadToken } from './api.js';
import { App } from './app.js';
import { applyStoredLook } from './settings.js';

applyStoredLook();
// Relative to the page, so the UI also works behind a proxy under a path prefix.
const base = `${window.location.origin}${window.location.pathname.replace(/\/[^/]*$/, '')}`;
const app = new App(new Api(base, loadToken()));
void app.start();
