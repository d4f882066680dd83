import type { Message, RecordMessage } from '../../protocol/svc/messages.js';

// The emulated terminal's state, as pure functions: what the host asked to
// charge or void, the records kept until the host confirms them, the open batch.

export interface PendingCharge {
  orderId: string;
  amount: number;
  currency: string;
}

export interface DeviceState {
  serial: string;
  firmware: string;
  nextSeq: number;
  nextBatch: number;
  /** Charges asked by the host, waiting for approval (auto or operator). */
  charges: PendingCharge[];
  /** Voids asked by the host, waiting for the operator (or done at once with auto-approve). */
  voids: string[];
  /** Records not yet confirmed by the host, oldest first. */
  records: RecordMessage[];
  /** Sales since the last batch close. */
  batch: { count: number; currency: string | null };
  /** Orders this device has approved (the most recent APPROVED_KEPT): a charge asked for one again is refused, never approved twice. */
  approved: string[];
  /** Orders whose charge was declined at the terminal, and orders voided (the most recent APPROVED_KEPT each): what 0150 answers. */
  declined: string[];
  voided: string[];
  /** The id of the last batch close carried out: a 0500 with the same id is a repeat, answered without closing again. */
  lastCloseId: string | null;
}

/** How many approved orders the device remembers. */
export const APPROVED_KEPT = 5000;

/** The answer code for a charge of an order already approved here (ISO 8583's "duplicate transmission"). */
export const RC_ALREADY_APPROVED = '94';

export function newDevice(serial: string, firmware = '1.0.0'): DeviceState {
  return {
    serial,
    firmware,
    nextSeq: 1,
    nextBatch: 1,
    charges: [],
    voids: [],
    records: [],
    batch: { count: 0, currency: null },
    approved: [],
    declined: [],
    voided: [],
    lastCloseId: null,
  };
}

/** The answer to a host request and the state after it. Approvals happen outside, by time or operator. */
export function answer(state: DeviceState, request: Message): { state: DeviceState; reply: Message } {
  switch (request.code) {
    case '0100':
      return {
        state,
        reply: {
          code: '0110',
          serial: state.serial,
          firmware: state.firmware,
          batchOpen: state.batch.count > 0,
          pendingCount: state.records.length,
        },
      };
    case '0300':
      if (state.approved.includes(request.orderId)) return { state, reply: { code: '0310', rc: RC_ALREADY_APPROVED } };
      if (state.charges.some((c) => c.orderId === request.orderId)) return { state, reply: { code: '0310', rc: '00' } }; // asked again: same answer
      // A charge declined before and asked again is the cashier trying another card.
      return {
        state: {
          ...state,
          declined: state.declined.filter((id) => id !== request.orderId),
          charges: [...state.charges, { orderId: request.orderId, amount: request.amount, currency: request.currency }],
        },
        reply: { code: '0310', rc: '00' },
      };
    case '0320':
      if (state.voids.includes(request.orderId)) return { state, reply: { code: '0330', rc: '00' } };
      return { state: { ...state, voids: [...state.voids, request.orderId] }, reply: { code: '0330', rc: '00' } };
    case '0500':
      // The same close again (its answer was lost, or the host restarted before it heard it): answered, not repeated.
      if (request.closeId !== undefined && request.closeId === state.lastCloseId)
        return { state, reply: { code: '0510', rc: '00' } };
      return {
        state: { ...closeBatch(state, new Date().toISOString()), lastCloseId: request.closeId ?? null },
        reply: { code: '0510', rc: '00' },
      };
    case '0150':
      return {
        state,
        reply: {
          code: '0160',
          kind: request.kind,
          orderId: request.orderId,
          state: askState(state, request.kind, request.orderId),
        },
      };
    case '0250':
      return { state, reply: state.records[0] ?? { code: '0260' } };
    case '0270':
      return {
        state: { ...state, records: state.records.filter((r) => r.seq !== request.seq) },
        reply: { code: '0280', seq: request.seq },
      };
    default:
      return { state, reply: { code: '0990', errorCode: '01', text: `unexpected message ${request.code}` } };
  }
}

/** What the device knows of an ask, for a host that cannot tell whether its ask reached the device. */
export function askState(
  state: DeviceState,
  kind: 'charge' | 'void',
  orderId: string,
): 'pending' | 'done' | 'declined' | 'unknown' {
  if (kind === 'charge') {
    if (state.approved.includes(orderId)) return 'done';
    if (state.charges.some((charge) => charge.orderId === orderId)) return 'pending';
    return state.declined.includes(orderId) ? 'declined' : 'unknown';
  }
  if (state.voided.includes(orderId)) return 'done';
  return state.voids.includes(orderId) ? 'pending' : 'unknown';
}

/** The customer paid: a sale record, counted in the open batch. */
export function approve(state: DeviceState, orderId: string, at: string, authorizationCode: string): DeviceState {
  const charge = state.charges.find((c) => c.orderId === orderId);
  if (!charge) return state;
  const record: RecordMessage = {
    code: '0210',
    seq: state.nextSeq,
    orderId,
    amount: charge.amount,
    currency: charge.currency,
    authorizationCode,
    paidAt: at,
  };
  return {
    ...state,
    nextSeq: state.nextSeq + 1,
    charges: state.charges.filter((c) => c !== charge),
    records: [...state.records, record],
    batch: { count: state.batch.count + 1, currency: state.batch.currency ?? charge.currency },
    approved: [...state.approved, orderId].slice(-APPROVED_KEPT),
  };
}

export function decline(state: DeviceState, orderId: string): DeviceState {
  if (!state.charges.some((c) => c.orderId === orderId)) return state;
  return {
    ...state,
    charges: state.charges.filter((c) => c.orderId !== orderId),
    declined: [...state.declined, orderId].slice(-APPROVED_KEPT),
  };
}

export function voidOrder(state: DeviceState, orderId: string, at: string): DeviceState {
  if (!state.voids.includes(orderId)) return state;
  const record: RecordMessage = { code: '0230', seq: state.nextSeq, orderId, voidedAt: at };
  return {
    ...state,
    nextSeq: state.nextSeq + 1,
    voids: state.voids.filter((v) => v !== orderId),
    records: [...state.records, record],
    voided: [...state.voided, orderId].slice(-APPROVED_KEPT),
  };
}

/** Closes the batch into a record with the six settlement fields. */
export function closeBatch(state: DeviceState, at: string): DeviceState {
  const number = String(state.nextBatch).padStart(4, '0');
  const record: RecordMessage = {
    code: '0520',
    seq: state.nextSeq,
    batchNumber: `B${number}`,
    transactionCount: state.batch.count,
    closedAt: at,
    currencyReference: state.batch.currency ?? 'USD',
    terminal: state.serial,
    debitBatch: `D${number}`,
  };
  return {
    ...state,
    nextSeq: state.nextSeq + 1,
    nextBatch: state.nextBatch + 1,
    records: [...state.records, record],
    batch: { count: 0, currency: null },
  };
}

/** A batch close with the given fields, kept like any other record (replaying batches through a device). */
export function queueSettlement(
  state: DeviceState,
  settlement: Omit<Extract<RecordMessage, { code: '0520' }>, 'code' | 'seq'>,
): DeviceState {
  const record: RecordMessage = { code: '0520', seq: state.nextSeq, ...settlement };
  return { ...state, nextSeq: state.nextSeq + 1, records: [...state.records, record] };
}
