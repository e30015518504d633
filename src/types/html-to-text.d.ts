/** The part of html-to-text 10 the catalogue import uses; the package ships no types. */
declare module 'html-to-text' {
  export interface HtmlToTextOptions {
    wordwrap?: number | false | null;
    preserveNewlines?: boolean;
    selectors?: { selector: string; format?: string; options?: Record<string, unknown> }[];
  }
  export function convert(html: string, options?: HtmlToTextOptions): string;
}
