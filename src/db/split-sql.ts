/**
 * Splits SQL text of several statements at its top-level semicolons, keeping each statement's text as written.
 * Semicolons inside '…' and E'…' strings, "…" identifiers, $tag$…$tag$ bodies, -- and /* … *\/ comments do not
 * split. Statements that are only whitespace and comments are dropped.
 *
 * The migrator sends a migration one statement at a time: on Citus, DDL on a distributed table is propagated with
 * the text of the query that carried it, and a text of several statements fails on the workers ("cannot insert
 * multiple commands into a prepared statement").
 */
export function splitSql(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = text.length;
  const push = (end: number) => {
    const stmt = text.slice(start, end).trim();
    if (stripComments(stmt).trim()) out.push(stmt);
    start = end + 1;
  };
  while (i < n) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '-' && next === '-') {
      const eol = text.indexOf('\n', i);
      i = eol === -1 ? n : eol + 1;
    } else if (c === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (text[i] === '/' && text[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (text[i] === '*' && text[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === "'") {
      const escapes = i > 0 && /[eE]/.test(text[i - 1]) && !/\w/.test(text[i - 2] ?? '');
      i++;
      while (i < n) {
        if (escapes && text[i] === '\\') i += 2;
        else if (text[i] === "'" && text[i + 1] === "'") i += 2;
        else if (text[i] === "'") break;
        else i++;
      }
      i++;
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      i = end === -1 ? n : end + 1;
    } else if (c === '$' && !/\w/.test(text[i - 1] ?? '')) {
      const tag = /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.exec(text.slice(i));
      if (tag) {
        const end = text.indexOf(tag[0], i + tag[0].length);
        i = end === -1 ? n : end + tag[0].length;
      } else i++;
    } else if (c === ';') {
      push(i);
      i++;
    } else i++;
  }
  push(n);
  return out;
}

function stripComments(stmt: string): string {
  return stmt.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}
