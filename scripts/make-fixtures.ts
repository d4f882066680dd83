// Writes the fixtures that must be computed (signatures, LRCs) from the
// real codecs, so every byte in them checks: node --import tsx scripts/make-fixtures.ts
import { writeFileSync } from 'node:fs';
import { signWebhook } from '../contracts/webhook-signature.js';
import { encodeFrame, hex } from '../terminal/protocol/frame.js';

const root = new URL('../fixtures/', import.meta.url);
const secret = `whsec_${'5e'.repeat(32)}`;
const payment = { id: 'pay_0a1b2c3d4e5f607182', origin: 'button', amount_reference: 120.5 };
const deliveries = [
  {
    name: 'paid',
    timestamp: '2026-11-21T10:00:00.000Z',
    idempotencyKey: '7d0f7d5c-2f4b-4d76-9a1e-0c4a6f3b2d10',
    body: {
      event: 'payment_session.paid',
      event_id: 'evt_0011223344556677aa',
      created_at: '2026-11-21T10:00:00.000Z',
      data: { session_id: 'ses_8899aabbccddeeff00', status: 'paid', session_payment: payment },
    },
  },
  {
    name: 'accredited',
    timestamp: '2026-11-21T10:00:05.000Z',
    idempotencyKey: '0b7e2a44-91c3-4f0e-8d5a-6c2e1f9b3a77',
    body: {
      event: 'payment_session.accredited',
      event_id: 'evt_0011223344556677bb',
      created_at: '2026-11-21T10:00:05.000Z',
      data: {
        session_id: 'ses_8899aabbccddeeff00',
        status: 'paid',
        session_payment: payment,
        receiver_credits: [
          {
            receiver_id: 'ptn_aa11bb22cc33dd44ee',
            receiver_type: 'partner',
            gross_amount: 40,
            commission: 0.4,
            net_amount: 39.6,
            status: 'credited',
          },
          {
            receiver_id: 'acc_ff00ee11dd22cc33bb',
            receiver_type: 'owner',
            gross_amount: 80.5,
            commission: 0.81,
            net_amount: 79.69,
            status: 'credited',
          },
        ],
        receiver_credits_summary: { gross_amount: 120.5, commissions: 1.21, net_amount: 119.29, total_credits: 2 },
      },
    },
  },
];
for (const delivery of deliveries) {
  const rawBody = JSON.stringify(delivery.body);
  const fixture = {
    description: `A signed ${delivery.body.event} delivery: verify it with the secret below over the exact raw_body.`,
    secret,
    headers: {
      'content-type': 'application/json',
      'svc-signature': signWebhook(secret, delivery.timestamp, rawBody),
      'svc-timestamp': delivery.timestamp,
      'idempotency-key': delivery.idempotencyKey,
    },
    raw_body: rawBody,
  };
  writeFileSync(new URL(`webhooks/${delivery.name}.json`, root), `${JSON.stringify(fixture, null, 2)}\n`);
}

const exchange: Array<['H→T' | 'T→H', string]> = [
  ['H→T', '0100'],
  ['T→H', '0110|POS-0001|1.0.0|0|0'],
  ['H→T', '0300|ord-7|2500|USD'],
  ['T→H', '0310|00'],
  ['H→T', '0250'],
  ['T→H', '0210|1|ord-7|2500|USD|3F9A1C|2026-11-21T10:00:05.000Z'],
  ['H→T', '0270|1'],
  ['T→H', '0280|1'],
  ['H→T', '0250'],
  ['T→H', '0260'],
];
const transcript = {
  description:
    'Charging ord-7 for 25.00 USD and collecting the sale; every frame is answered ACK (06) by the other side.',
  frames: exchange.map(([direction, payload]) => ({ direction, payload, hex: hex(encodeFrame(payload)) })),
};
writeFileSync(new URL('serial/charge-and-collect.json', root), `${JSON.stringify(transcript, null, 2)}\n`);
process.stdout.write('fixtures written\n');
