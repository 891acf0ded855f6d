// The path query language's tokens (docs/query-language.md §3), for highlighting; the server's parser decides
// what is valid; this only colours what was typed and marks where the server says an error is.

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'true', 'false', 'null', 'startswith', 'endswith', 'exists']);

/** The tokens of `text` as [{kind, text}] covering it all: kw, str, num, op, punct, name, space, other. */
export function tokens(text) {
  const out = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    let match;
    let kind;
    if ((match = /^\s+/.exec(rest))) {
      kind = 'space';
    } else if (rest[0] === "'" || rest[0] === '"' || rest[0] === '`') {
      const quote = rest[0];
      let j = 1;
      while (j < rest.length && rest[j] !== quote) {
        j += rest[j] === '\\' ? 2 : 1;
      }
      match = [rest.slice(0, Math.min(j + 1, rest.length))];
      kind = quote === '`' ? 'name' : 'str';
    } else if ((match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(rest))) {
      kind = 'num';
    } else if ((match = /^(<=|>=|!=|[=<>])/.exec(rest))) {
      kind = 'op';
    } else if ((match = /^[/*[\](),.]/.exec(rest))) {
      kind = 'punct';
    } else if ((match = /^[A-Za-z_][A-Za-z0-9_$-]*/.exec(rest))) {
      kind = KEYWORDS.has(match[0].toLowerCase()) ? 'kw' : 'name';
    } else {
      match = [rest[0]];
      kind = 'other';
    }
    out.push({ kind, text: match[0], start: i });
    i += match[0].length;
  }
  return out;
}
