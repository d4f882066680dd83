/** A string as one single-quoted shell word: the curl lines both svc-contracts reports print. */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
