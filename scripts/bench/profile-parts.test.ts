import t from 'tap';
import { partOf, summarize, type CpuProfile } from './profile-parts.js';

// bench:profile's division of a CPU profile into the parts of a request.

t.test('functions go to the part their file says', async (t) => {
  const dist = 'file:///repo/dist/';
  t.equal(partOf('(garbage collector)', ''), 'garbage collection');
  t.equal(partOf('writev', ''), 'socket writes (kernel)');
  t.equal(partOf('fdatasync', ''), 'journal fdatasync (kernel)');
  t.equal(partOf('get', `${dist}server/store/embedded/memory-state.js`), 'embedded store');
  t.equal(partOf('crc32', 'node:zlib'), 'embedded store', 'the journal checksum');
  t.equal(partOf('set', 'file:///repo/node_modules/sorted-btree/b+tree.js'), 'embedded store', 'its indexes');
  t.equal(partOf('query', `${dist}server/store/postgres/pg-store.js`), 'PostgreSQL store');
  t.equal(partOf('parse', 'file:///repo/node_modules/pg-protocol/dist/parser.js'), 'pg driver');
  t.equal(partOf('deepFreeze', `${dist}server/store/frozen.js`), 'store port (shared)');
  t.equal(partOf('Hmac', 'node:internal/crypto/hash'), 'signature check and claim');
  t.equal(partOf('verify', `${dist}server/terminals/pos-signatures.js`), 'signature check and claim');
  t.equal(partOf('build', `${dist}server/settlements/settlement-service.js`), 'settlement rules and records');
  t.equal(partOf('validate22', ''), 'request validation (ajv)', "ajv's compiled functions have no file");
  t.equal(partOf('parseBody', `${dist}server/http/read-body.js`), 'body read and JSON parse');
  t.equal(partOf('accessLog', `${dist}server/http/access-log.js`), 'our other middleware');
  t.equal(partOf('match', 'file:///repo/node_modules/@koa/router/dist/index.mjs'), 'router');
  t.equal(partOf('dispatch', 'file:///repo/node_modules/koa-compose/index.js'), 'Koa');
  t.equal(partOf('(anonymous)', `${dist}scripts/bench/minimal-route.js`), 'the reference route');
  t.equal(partOf('parserOnHeadersComplete', 'node:_http_common'), 'Node HTTP, streams and events');
  t.equal(partOf('runMicrotasks', ''), 'promises and ticks');
  t.equal(partOf('(program)', ''), 'V8 and native, unattributed');
  t.equal(partOf('something', 'file:///repo/node_modules/unknown/x.js'), 'other');
});

t.test('self time by part and by function, idle left out, within the window asked', async (t) => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '' } },
      { id: 2, callFrame: { functionName: '(idle)', url: '' } },
      { id: 3, callFrame: { functionName: 'writev', url: '' } },
      { id: 4, callFrame: { functionName: 'get', url: 'file:///r/dist/server/store/embedded/memory-state.js' } },
    ],
    // Samples 1 ms apart from t = 1,000 µs: writev, get, idle, get, writev, get (the last stands for no time).
    samples: [3, 4, 2, 4, 3, 4],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000],
    startTime: 0,
    endTime: 7000,
  };
  const all = summarize(profile);
  t.equal(all.busyMs, 4, 'five busy samples, the last standing for none');
  t.same(Object.fromEntries(all.parts), { 'socket writes (kernel)': 2, 'embedded store': 2 });
  t.same(Object.fromEntries(all.functions), { 'writev ': 2, 'get server/store/embedded/memory-state.js': 2 });
  // The last 3 ms that end 1 ms before the end: samples at 3, 4, 5 and 6 ms (idle, get, writev, get).
  const window = summarize(profile, { lengthMs: 3, beforeEndMs: 1 });
  t.same(Object.fromEntries(window.parts), { 'embedded store': 1, 'socket writes (kernel)': 1 });
});
