/**
 * Markdown transcript → PDF with pdfkit (loaded lazily). Uses a CJK-capable font
 * when the machine has one, so Chinese text renders; otherwise the built-in Helvetica.
 */
import { existsSync } from 'node:fs';

/** Font files and, for collections (.ttc), the PostScript name of the face to use. */
const CJK_FONTS: ReadonlyArray<{ file: string; face?: string }> = [
  { file: '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc', face: 'WenQuanYiMicroHei' },
  { file: '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc', face: 'WenQuanYiZenHei' },
  { file: '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', face: 'NotoSansCJKsc-Regular' },
  { file: '/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc', face: 'NotoSansCJKsc-Regular' },
  { file: '/usr/share/fonts/truetype/arphic/uming.ttc', face: 'AR-PL-UMing-CN' },
];

/** The first CJK font file that exists here, if any. */
export function findCjkFont(
  candidates: ReadonlyArray<{ file: string; face?: string }> = CJK_FONTS,
): { file: string; face?: string } | undefined {
  return candidates.find((f) => existsSync(f.file));
}

export async function markdownToPdf(markdown: string, font = findCjkFont()): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: 'Tea session', Creator: 'Tea Agent' },
  });
  const chunks: Buffer[] = [];
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  let body = 'Helvetica';
  let bold = 'Helvetica-Bold';
  let mono = 'Courier';
  if (font) {
    try {
      doc.registerFont('cjk', font.file, font.face as string);
      doc.font('cjk');
      body = bold = mono = 'cjk';
    } catch {
      // keep the built-in fonts
    }
  }
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (/^`{3,}/.test(line)) {
      inCode = !inCode;
      continue;
    }
    if (inCode)
      doc
        .font(mono)
        .fontSize(9)
        .text(line || ' ');
    else if (line.startsWith('# ')) doc.font(bold).fontSize(18).text(line.slice(2)).moveDown(0.5);
    else if (line.startsWith('## ')) doc.moveDown(0.5).font(bold).fontSize(13).text(line.slice(3));
    else
      doc
        .font(body)
        .fontSize(11)
        .text(line || ' ');
  }
  doc.end();
  return finished;
}
