/** `/clear` and `/quit` (`/exit`): what the screen itself does. */
import type { TuiCommand } from '../host.js';

export const clearCommand: TuiCommand = {
  name: 'clear',
  description: 'Clear the screen (the session and its transcript stay)',
  whileBusy: true,
  run(_arg, host) {
    host.clear();
  },
};

export const quitCommand: TuiCommand = {
  name: 'quit',
  aliases: ['exit'],
  description: 'Leave Tea (the session is kept; /resume it later)',
  whileBusy: true,
  run(_arg, host) {
    host.exit();
  },
};
