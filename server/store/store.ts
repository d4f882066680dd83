// The store port every part of the server persists through, in three parts:
// record storage (record-store.ts), claims (claim-store.ts), and what
// instances sharing it coordinate through (coordination.ts). Its adapters:
// embedded/ (the default, a journal and snapshot in a directory) and
// postgres/. testing/store-contract.ts is the behaviour every adapter passes.

import type { ClaimStore } from './claim-store.js';
import type { InstanceCoordination } from './coordination.js';
import type { RecordStore } from './record-store.js';

export type {
  IndexDeclaration,
  IndexDeclarations,
  OrderType,
  Query,
  Scalar,
  StoredRecord,
  Transaction,
} from './record-store.js';
export type { Claim, ClaimedWrite, ClaimedWriteOutcome, LinkedRead, LinkedRecords, ReadBasis } from './claim-store.js';
export type { BusMessage, InstanceBus } from './coordination.js';
export type { ClaimStore, InstanceCoordination, RecordStore };

/** The whole port, as one adapter implements it. */
export interface Store extends RecordStore, ClaimStore, InstanceCoordination {}
