/**
 * The input box: Enter sends, Shift+Enter adds a line, Enter during IME
 * composition (Chinese, Japanese…) only confirms the composition. Images can be
 * pasted or picked; they show as thumbnails until sent. The box is as high as its
 * text, and its hint shortens where the whole one would not fit on one line (a phone).
 */
import { byId, clear, h, toast } from './dom.js';
import type { ImageInput } from './types.js';

const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const HINT = 'Ask Tea anything… (Enter to send, Shift+Enter for a new line)';
const SHORT_HINT = 'Ask Tea anything…';

export interface ComposerHandlers {
  send(text: string, images: ImageInput[]): Promise<boolean>;
  stop(): void;
}

export class Composer {
  private readonly input = byId<HTMLTextAreaElement>('prompt-input');
  private readonly sendButton = byId<HTMLButtonElement>('send-button');
  private readonly stopButton = byId<HTMLButtonElement>('stop-button');
  private readonly fileInput = byId<HTMLInputElement>('image-input');
  private readonly previews = byId('image-previews');
  private images: ImageInput[] = [];
  private running = false;
  private width = -1;

  constructor(private readonly handlers: ComposerHandlers) {
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        void this.submit();
      }
    });
    this.input.addEventListener('input', () => this.autosize());
    // A new width (window, session list, panel): the hint that fits, and the height for it.
    new ResizeObserver(() => {
      if (this.input.clientWidth === this.width) return;
      this.width = this.input.clientWidth;
      this.fitHint();
      this.autosize();
    }).observe(this.input);
    this.input.addEventListener('paste', (e) => {
      const files = Array.from(e.clipboardData?.files ?? []).filter((f) => f.type.startsWith('image/'));
      if (files.length > 0) {
        e.preventDefault();
        void this.addFiles(files);
      }
    });
    this.sendButton.addEventListener('click', () => void this.submit());
    this.stopButton.addEventListener('click', () => this.handlers.stop());
    byId('attach-button').addEventListener('click', () => this.fileInput.click());
    this.fileInput.addEventListener('change', () => {
      void this.addFiles(Array.from(this.fileInput.files ?? []));
      this.fileInput.value = '';
    });
    document.addEventListener('keydown', (e) => {
      // Not when an overlay took the key (panels.ts closes the session list or a panel first).
      if (e.key === 'Escape' && this.running && !e.isComposing && !e.defaultPrevented) this.handlers.stop();
    });
  }

  focus(): void {
    this.input.focus();
  }

  /** Switches between the Send and Stop buttons. */
  setRunning(running: boolean): void {
    this.running = running;
    this.stopButton.hidden = !running;
    this.sendButton.hidden = running;
    document.body.dataset.running = String(running);
  }

  async addFiles(files: File[]): Promise<void> {
    for (const file of files) {
      if (!file.type.startsWith('image/')) {
        toast(`${file.name} is not an image`, 'error');
        continue;
      }
      if (file.size > MAX_IMAGE_BYTES) {
        toast(`${file.name} is larger than 8 MB`, 'error');
        continue;
      }
      const data = await readBase64(file);
      this.images.push({ mediaType: file.type, data });
    }
    this.renderPreviews();
  }

  private async submit(): Promise<void> {
    const text = this.input.value;
    if (!text.trim() && this.images.length === 0) return;
    if (this.running) {
      toast('A turn is running: press Stop (Esc) first', 'info');
      return;
    }
    const images = this.images;
    // Keep what was typed until the server accepted it: a failed send loses nothing.
    const ok = await this.handlers.send(text, images);
    if (ok) {
      this.input.value = '';
      this.images = [];
      this.renderPreviews();
      this.autosize();
    }
  }

  private renderPreviews(): void {
    clear(this.previews);
    this.images.forEach((image, index) => {
      const remove = h('button', { class: 'thumb-remove', 'aria-label': 'Remove image' }, '×');
      remove.addEventListener('click', () => {
        this.images.splice(index, 1);
        this.renderPreviews();
      });
      this.previews.appendChild(
        h(
          'div',
          { class: 'preview', 'data-testid': 'image-preview' },
          h('img', { src: `data:${image.mediaType};base64,${image.data}`, alt: 'image to send' }),
          remove,
        ),
      );
    });
    this.previews.hidden = this.images.length === 0;
  }

  /** The whole hint when it fits on one line of the box, else the short one. */
  private fitHint(): void {
    const style = getComputedStyle(this.input);
    const room = this.input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    if (room <= 0) return; // not laid out (hidden)
    const fits = textWidth(HINT, style) <= room - 2;
    this.input.placeholder = fits ? HINT : SHORT_HINT;
  }

  /** As high as the text (or the hint, when empty), up to 240 px. */
  private autosize(): void {
    this.input.style.height = 'auto';
    // The height includes the borders (border-box), the scroll height does not.
    const borders = this.input.offsetHeight - this.input.clientHeight;
    this.input.style.height = `${Math.min(this.input.scrollHeight + borders, 240)}px`;
  }
}

let measure: CanvasRenderingContext2D | null = null;

/** The width of one line of `text` in an element's font. */
function textWidth(text: string, style: CSSStyleDeclaration): number {
  measure ??= document.createElement('canvas').getContext('2d');
  if (!measure) return 0;
  measure.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  return measure.measureText(text).width;
}

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}
