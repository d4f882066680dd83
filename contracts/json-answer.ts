/**
 * A JSON answer of the interface, read as the OpenAPI document describes it:
 * the clients, the suite, the benches and the test kits read many fields of
 * many answers, and the contract suite validates every answer against the
 * document, so each reader does not restate its shape. The one `any` the
 * lint allows, named so that it is found.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type JsonAnswer = any;
