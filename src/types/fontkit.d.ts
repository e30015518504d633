/** The part of fontkit 2 (pdfkit's own font engine) the invoice fonts use; the package ships no types. */
declare module 'fontkit' {
  export interface Glyph {
    id: number;
    codePoints: number[];
    advanceWidth: number;
  }
  export interface GlyphPosition {
    xAdvance: number;
    yAdvance: number;
    xOffset: number;
    yOffset: number;
  }
  export interface GlyphRun {
    glyphs: Glyph[];
    positions: GlyphPosition[];
    readonly advanceWidth: number;
  }
  export interface Font {
    layout(text: string, features?: unknown, ...rest: unknown[]): GlyphRun;
    glyphsForString(text: string): Glyph[];
  }
  export function create(buffer: Uint8Array, postscriptName?: string): Font;
}
