// What PostgreSQL cannot hold, kept anyway: jsonb refuses the escape
// \u0000 and lone surrogates (\ud800 without its pair), and text refuses
// the NUL character, while the embedded store keeps any JSON string. So the
// PostgreSQL store writes them in an escape of its own and reads them back
// as they were: U+0001 introduces it, followed by "0" for NUL, "e" for a
// U+0001 of the data itself, or "s" and four hex digits for a lone
// surrogate. Every string any client sends is then stored and read back
// equal on both stores (docs/postgresql.md, Text). Text without those characters, all
// but never, passes through untouched after one test.

const ESCAPE = '\u0001';
const NEEDS_KEY_ESCAPE = /[\u0000\u0001\ud800-\udfff]/;
const KEY_ESCAPES = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const KEY_UNESCAPES = /\u0001(0|e|s([0-9a-f]{4}))/g;

/** A string as a text column can hold it (ids, collection names). */
export function encodeKey(text: string): string {
  if (!NEEDS_KEY_ESCAPE.test(text)) return text;
  return text.replace(KEY_ESCAPES, (char) =>
    char === '\u0000'
      ? `${ESCAPE}0`
      : char === ESCAPE
        ? `${ESCAPE}e`
        : `${ESCAPE}s${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function decodeKey(text: string): string {
  if (!text.includes(ESCAPE)) return text;
  return text.replace(KEY_UNESCAPES, (_, kind: string, hex?: string) =>
    kind === '0' ? '\u0000' : kind === 'e' ? ESCAPE : String.fromCharCode(parseInt(hex!, 16)),
  );
}

// In JSON text (as JSON.stringify writes it) the three appear as escapes:
// \u0000, \u0001 and \udXXX (lower case). An escaped backslash is matched
// first, so "\\u0000" (a backslash, then the letters u0000) is left alone.
const JSON_ESCAPES = /\\\\|\\u(0000|0001|d[89a-f][0-9a-f]{2})/g;
const JSON_UNESCAPES = /\\\\|\\u0001(0|e|s(d[89a-f][0-9a-f]{2}))/g;

/** A value as JSON text that jsonb accepts. */
export function encodeJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (!text.includes('\\u')) return text;
  return text.replace(JSON_ESCAPES, (match, code?: string) => {
    if (code === undefined) return match;
    return code === '0000' ? '\\u00010' : code === '0001' ? '\\u0001e' : `\\u0001s${code}`;
  });
}

/** Parses JSON text read from jsonb, restoring what encodeJson escaped. */
export function decodeJson(text: string): unknown {
  if (!text.includes('\\u0001')) return JSON.parse(text);
  return JSON.parse(
    text.replace(JSON_UNESCAPES, (match, kind?: string, hex?: string) => {
      if (kind === undefined) return match;
      return kind === '0' ? '\\u0000' : kind === 'e' ? '\\u0001' : `\\u${hex}`;
    }),
  );
}
