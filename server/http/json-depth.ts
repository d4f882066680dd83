// One bound on how deeply client JSON may nest, applied wherever a body is
// parsed. Past it the body is refused before it is parsed, so nothing that
// walks the value later (validation, freezing, serialising it into the
// journal or the trace) can run out of stack on it: about 4,200 levels
// exhausted the stack when a record was serialised.

/** Deeper than any body of the interface needs (they nest 4 levels at most), far below the stack's reach. */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when JSON text nests objects and arrays more than `limit` deep,
 * counted over brackets outside strings in one pass that stops as soon as
 * the limit is passed. Text that is not JSON is measured the same way; the
 * parser refuses it afterwards.
 */
export function nestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}

export const depthMessage = `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`;
