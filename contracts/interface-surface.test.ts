import { readFileSync } from 'node:fs';
import t from 'tap';
import { interfaceSurface } from './interface-surface.js';
import { openApiDocument } from './openapi.js';

// What the `interface` profile judges a deployment on, fact by fact, against
// the surface last classified (contracts/interface-surface.txt). An
// operation, status, media type or field added to our document shows up
// here: mark it ours (x-ours, x-ours-properties, x-ours-statuses…:
// profiles.ts) or, if the interface fixes it, accept it as the
// interface's with `npm run write:interface`.

t.test('every operation, status, media type and field the interface profile judges is classified', async (t) => {
  const accepted = readFileSync(new URL('./interface-surface.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);
  const now = interfaceSurface(openApiDocument);
  const added = now.filter((line) => !accepted.includes(line));
  const gone = accepted.filter((line) => !now.includes(line));
  t.same(
    added,
    [],
    "not classified yet: mark it ours in the document, or accept it as the interface's (npm run write:interface)",
  );
  t.same(gone, [], 'no longer judged: if that is meant, npm run write:interface');
});

t.test('the surface holds none of what is ours', async (t) => {
  const surface = interfaceSurface(openApiDocument).join('\n');
  for (const ours of [
    '/console/app.js',
    '/pay/app.js',
    '/console/sessions/{session_id}',
    '/console/trace/stream',
    '/resend application/json /url',
    'GET /relay 426',
    'GET /pay/{session_id} 404 text/html',
  ]) {
    t.notOk(surface.includes(ours), `${ours}: ours`);
  }
  for (const theirs of [
    'operation POST /api/v1/pos-terminals/{serialNumber}/settlements',
    'status GET /relay 101',
    'answer GET /pay/{session_id} 404 any',
  ])
    t.ok(surface.includes(theirs), theirs);
});
