import t from 'tap';
import type { FieldKind, FieldSpec } from './message-table.js';
import { LAYOUTS as SVC } from './svc/messages.js';
import { REQUEST_LAYOUTS, RESPONSE_LAYOUTS } from './transbank/messages.js';
import { BITMAPS } from './zvt/bitmaps.js';

// The three dialects' message tables in the one format: every field a name,
// a kind of the list, and a size where its dialect needs one.

const KINDS: readonly FieldKind[] = ['number', 'digits', 'text', 'flag', 'choice', 'reserved', 'bcd', 'binary', 'tlv'];

function check(
  t: { ok(value: unknown, message: string): void },
  dialect: string,
  fields: readonly FieldSpec[],
  needsSize: boolean,
) {
  for (const spec of fields) {
    t.ok(spec.name && KINDS.includes(spec.kind), `${dialect}: ${spec.name} is a ${spec.kind}`);
    if (needsSize) t.ok(spec.size !== undefined, `${dialect}: ${spec.name} has a size`);
    if (spec.kind === 'choice') t.ok(spec.values?.length, `${dialect}: ${spec.name} lists its values`);
  }
}

t.test('svc, Transbank and ZVT write their tables in the same format', async (t) => {
  for (const fields of Object.values(SVC)) check(t, 'svc', fields, false);
  for (const fields of [...Object.values(REQUEST_LAYOUTS), ...Object.values(RESPONSE_LAYOUTS)])
    check(t, 'transbank', fields, false);
  check(t, 'zvt', Object.values(BITMAPS), true);
  t.equal(BITMAPS[0x04]!.name, 'amount');
  t.same(BITMAPS[0x22], { name: 'pan', kind: 'bcd', size: 'LL' });
});
