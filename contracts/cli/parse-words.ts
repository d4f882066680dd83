// A mistake on a command line, in the words every command of ours uses,
// not node:util's parser's (which adds advice about '--' that fits none of
// them). One line; the command adds its name and where to read more.

/** The parser's error as one line of ours: unknown option --x, --x needs a value, unexpected argument "y". */
export function parseErrorInWords(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const text = message ?? String(error);
  const option = /'(-{1,2}[^' ]+)/.exec(text)?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? text}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument missing/.test(text)
        ? `${option ?? 'an option'} needs a value`
        : `${option ?? 'an option'} takes no value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const word = /'([^']*)'/.exec(text)?.[1];
      return word === undefined ? 'unexpected argument' : `unexpected argument ${JSON.stringify(word)}`;
    }
    default:
      return text;
  }
}
