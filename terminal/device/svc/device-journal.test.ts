import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { EmulatedTerminal } from './emulated-terminal.js';

t.test('with --state, records, the batch number and approved orders survive a restart', async (t) => {
  const path = join(t.testdir(), 'device.json');
  const first = new EmulatedTerminal({ serial: 'J-1', statePath: path });
  first.queueSettlement({
    batchNumber: 'B0001',
    transactionCount: 0,
    closedAt: '2026-11-21T18:00:00.000Z',
    currencyReference: 'USD',
    terminal: 'J-1',
    debitBatch: 'D0001',
  });
  t.match(first.operator('close'), /batch closed/);
  const saved = JSON.parse(await readFile(path, 'utf8')) as { records: unknown[]; nextBatch: number };
  t.equal(saved.records.length, 2, 'written on every change');

  const restarted = new EmulatedTerminal({ serial: 'J-1', statePath: path });
  t.same(
    restarted.snapshot.records.map((r) => r.code),
    ['0520', '0520'],
    'unconfirmed records kept',
  );
  t.equal(restarted.snapshot.nextBatch, 2, 'the batch numbering goes on');
  t.match(restarted.operator('close'), /batch closed/);
  t.equal((restarted.snapshot.records.at(-1) as { batchNumber: string }).batchNumber, 'B0002');
  t.throws(() => new EmulatedTerminal({ serial: 'OTHER', statePath: path }), /journal of device J-1, not OTHER/);
});
