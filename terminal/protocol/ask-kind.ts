/** What a host asks a device about an order: to charge it (PENDING) or to void it (VOID_PENDING). */
export type AskKind = 'charge' | 'void';
