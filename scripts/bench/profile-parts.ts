// A V8 CPU profile (.cpuprofile, as `node --cpu-prof` writes it) divided
// into the parts of a request a reader can act on: our store, our
// middleware, Koa, the router, ajv, Node's HTTP, the kernel's socket
// writes, garbage collection… Each sample is given to the function it
// landed in (self time), and that function to a part by its file. Pure:
// bench:profile reads the files and prints what this computes.

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples: number[];
  /** Microseconds from the previous sample (the first: from startTime). */
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** The samples to count: those within `lengthMs` that end `beforeEndMs` before the profile's end (a load that ran just before the process stopped). */
export interface SampleWindow {
  lengthMs: number;
  beforeEndMs: number;
}

/** The parts, matched in this order against "functionName url"; the first that matches takes the sample. */
const PARTS: Array<[string, RegExp]> = [
  ['garbage collection', /^\(garbage collector\) /],
  ['socket writes (kernel)', /^(writev|writeBuffer|writeUtf8String|writeLatin1String|writeAsciiString) $/],
  ['journal fdatasync (kernel)', /^fdatasync $/],
  ['embedded store', /server\/store\/embedded\/|\/sorted-btree\/|^crc32 node:zlib/],
  ['PostgreSQL store', /server\/store\/postgres\//],
  ['pg driver', /\/node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-[a-z]+)\//],
  ['store port (shared)', /server\/store\/[^/]+\.js/],
  [
    'signature check and claim',
    /server\/terminals\/|contracts\/pos-signature|node:internal\/crypto|^(Hmac|digest|update) /,
  ],
  ['settlement rules and records', /server\/settlements\/|contracts\/pos-types|server\/clock\.js/],
  ['request validation (ajv)', /\/node_modules\/ajv|contracts\/validator|server\/http\/validate-request|^validate\d* /],
  ['body read and JSON parse', /server\/http\/read-body|server\/http\/json-depth/],
  ['our other middleware', /server\/http\//],
  ['router', /\/node_modules\/(@koa\/router|path-to-regexp)\//],
  [
    'Koa',
    /\/node_modules\/(koa|koa-compose|koa-convert|on-finished|ee-first|delegates|statuses|only|http-errors|content-type|mime-types|type-is|accepts|vary|encodeurl|escape-html|cookies|fresh|destroy|koa-is-json)\//,
  ],
  ['the reference route', /scripts\/bench\/minimal-route/],
  ['other server code', /dist\/(server|contracts)\//],
  [
    'Node HTTP, streams and events',
    /^[^ ]* node:(_http|net|events|internal\/streams|internal\/stream_base|internal\/http|internal\/url|buffer|internal\/buffer|url)/,
  ],
  [
    'promises and ticks',
    /^(runMicrotasks|processTicksAndRejections|processPromiseRejections) |node:internal\/process\/task_queues/,
  ],
  ['file system calls', /node:internal\/fs|node:fs/],
  ['V8 and native, unattributed', /^\(program\) |^[^ ]+ $/],
];

/** The part a function belongs to ("other" when none matches). */
export function partOf(functionName: string, url: string): string {
  const key = `${functionName} ${url}`;
  return PARTS.find(([, pattern]) => pattern.test(key))?.[0] ?? 'other';
}

export interface ProfileSummary {
  /** Milliseconds of CPU the profile saw the process busy (idle samples left out). */
  busyMs: number;
  /** Milliseconds by part, and by function (name and file), busy samples only. */
  parts: Map<string, number>;
  functions: Map<string, number>;
}

/**
 * Self time of a profile by part and by function, in ms, over the samples
 * in `window` (all of them without one). Each sample stands for the time to
 * the next.
 */
export function summarize(profile: CpuProfile, window?: SampleWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  const end = profile.endTime - (window?.beforeEndMs ?? 0) * 1000;
  const start = window ? end - window.lengthMs * 1000 : -Infinity;
  let at = profile.startTime;
  let busyMs = 0;
  for (const [index, id] of profile.samples.entries()) {
    at += profile.timeDeltas[index] ?? 0;
    const msPerSample = ((profile.timeDeltas[index + 1] ?? 0) || 0) / 1000;
    const frame = byId.get(id);
    if (at < start || at > end || !frame || frame.functionName === '(idle)') continue;
    busyMs += msPerSample;
    const part = partOf(frame.functionName, frame.url);
    parts.set(part, (parts.get(part) ?? 0) + msPerSample);
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|dist)\//, '')}`;
    functions.set(name, (functions.get(name) ?? 0) + msPerSample);
  }
  return { busyMs, parts, functions };
}
