import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';

/**
 * The fonts an invoice is drawn with, and the text split into runs by script. The base font, Noto Sans Devanagari,
 * has Latin, Devanagari and ₹; a run of Bengali, Gurmukhi, Gujarati, Odia, Tamil, Telugu, Kannada or Malayalam
 * letters (a customer's name, an address, a product name) is drawn in a font of its own script, loaded the first time
 * a document needs it. pdfkit embeds and subsets each font and shapes each run with fontkit. All are SIL OFL 1.1 fonts
 * from the npm packages @expo-google-fonts/*: Noto Sans for each script but Gurmukhi, which is Baloo Paaji 2 because
 * fontkit 2.0 throws on Noto Sans Gurmukhi's mark positioning (a null anchor) for most Punjabi words.
 *
 * fontkit throws the same way on rarer sequences in other fonts (a Gujarati candra E followed by a candra E sign, in
 * Noto Sans Gujarati): every font is loaded through `safeFont`, whose layout falls back to the text's glyphs without
 * shaping when shaping throws, so a name never makes an invoice link fail.
 */

export type Weight = 'regular' | 'bold';

const WEIGHT: Record<Weight, string> = { regular: '400Regular', bold: '700Bold' };
/** A Noto Sans family as its package lays it out: noto-sans-tamil/400Regular/NotoSansTamil_400Regular.ttf */
const noto = (family: string) => (w: Weight) =>
  `@expo-google-fonts/${family.replace(/^NotoSans/, 'noto-sans-').toLowerCase()}/${WEIGHT[w]}/${family}_${WEIGHT[w]}.ttf`;

/** Unicode blocks of the scripts beyond Devanagari, in block order, each with its font file. */
const SCRIPTS = [
  { key: 'bengali', from: 0x0980, to: 0x09ff, file: noto('NotoSansBengali') },
  { key: 'gurmukhi', from: 0x0a00, to: 0x0a7f, file: (w: Weight) => `@expo-google-fonts/baloo-paaji-2/BalooPaaji2_${WEIGHT[w]}.ttf` },
  { key: 'gujarati', from: 0x0a80, to: 0x0aff, file: noto('NotoSansGujarati') },
  { key: 'oriya', from: 0x0b00, to: 0x0b7f, file: noto('NotoSansOriya') },
  { key: 'tamil', from: 0x0b80, to: 0x0bff, file: noto('NotoSansTamil') },
  { key: 'telugu', from: 0x0c00, to: 0x0c7f, file: noto('NotoSansTelugu') },
  { key: 'kannada', from: 0x0c80, to: 0x0cff, file: noto('NotoSansKannada') },
  { key: 'malayalam', from: 0x0d00, to: 0x0d7f, file: noto('NotoSansMalayalam') },
] as const;

export const BASE = 'base';
export type Script = typeof BASE | (typeof SCRIPTS)[number]['key'];
const baseFile = noto('NotoSansDevanagari');

/**
 * A fontkit font whose layout never throws: when fontkit's shaping fails on a sequence (a null anchor in a font's mark
 * positioning, say), the text is laid out as its plain glyphs, each at its own advance, marks unpositioned. The
 * letters are all there and extractable (each glyph keeps its code points); only their placement is rougher.
 */
export function safeFont(font: fontkit.Font): fontkit.Font {
  const layout = font.layout.bind(font);
  font.layout = (text, ...rest) => {
    try {
      return layout(text, ...rest);
    } catch {
      const glyphs = font.glyphsForString(text);
      // fresh objects every time: pdfkit scales the positions of the run it is given in place
      const positions = glyphs.map((g) => ({ xAdvance: g.advanceWidth, yAdvance: 0, xOffset: 0, yOffset: 0 }));
      return {
        glyphs,
        positions,
        get advanceWidth() {
          return positions.reduce((sum, p) => sum + p.xAdvance, 0);
        },
      };
    }
  };
  return font;
}

const require = createRequire(import.meta.url);
const fonts = new Map<string, fontkit.Font>();
/**
 * The font of a script and weight, read and parsed once per process. pdfkit takes a fontkit font as a font source and
 * keeps each document's subset apart, so one parsed font serves every invoice.
 */
export function fontFor(script: Script, weight: Weight): fontkit.Font {
  const path = require.resolve(script === BASE ? baseFile(weight) : SCRIPTS.find((s) => s.key === script)!.file(weight));
  let font = fonts.get(path);
  if (!font) fonts.set(path, (font = safeFont(fontkit.create(readFileSync(path)))));
  return font;
}

/**
 * Joiners and Devanagari's dandas are used by every Indic script, and every font has a space: they stay in the run
 * they sit in (a run boundary at a space would let pdfkit break the line there).
 */
const inherits = (cp: number) => cp === 0x20 || cp === 0x200c || cp === 0x200d || cp === 0x0964 || cp === 0x0965;

function scriptOf(cp: number): Script {
  for (const s of SCRIPTS) if (cp >= s.from && cp <= s.to) return s.key;
  return BASE;
}

/** The text cut where the script changes: each run is drawn in one font. Punctuation and digits are base text. */
export function scriptRuns(text: string): { script: Script; text: string }[] {
  const runs: { script: Script; text: string }[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const last = runs.at(-1);
    const script = last && inherits(cp) ? last.script : scriptOf(cp);
    if (last?.script === script) last.text += ch;
    else runs.push({ script, text: ch });
  }
  return runs;
}

/** The pdfkit font name registered for a script and weight. */
export const fontName = (script: Script, weight: Weight) => (script === BASE ? weight : `${weight}-${script}`);
