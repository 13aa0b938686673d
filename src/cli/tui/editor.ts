/**
 * The input box: pi-tui's Editor, with a pasted block's closing line break kept out of
 * its line count. pi-tui counts the lines of a paste by splitting at `\n`, so a block
 * of 50 lines ending in a newline (as copied from an editor or a terminal) became
 * `[paste #1 +51 lines]`. The block is pasted without that line break, which then
 * follows it: the text sent is the same, the count is right.
 */
import { Editor } from '@mariozechner/pi-tui';

const PASTE_START = '\u001b[200~';
const PASTE_END = '\u001b[201~';

export class TeaEditor extends Editor {
  override handleInput(data: string): void {
    // pi-tui's terminal hands a whole paste over as one bracketed string.
    if (data.startsWith(PASTE_START) && data.endsWith(PASTE_END)) {
      const content = data.slice(PASTE_START.length, data.length - PASTE_END.length);
      const block = content.replace(/(?:\r\n|\r|\n)$/, '');
      if (block !== content && block.trim() !== '') {
        super.handleInput(`${PASTE_START}${block}${PASTE_END}`);
        this.insertTextAtCursor('\n');
        return;
      }
    }
    super.handleInput(data);
  }
}
