import type { SecuredMessage } from './crypto.js';

// The nexo retailer protocol as Adyen's Terminal API carries it: JSON, one
// SaleToPOIRequest a POST and one SaleToPOIResponse its answer, each a
// MessageHeader and one body named after the header's MessageCategory
// (PaymentRequest, PaymentResponse…). A body is a record of nexo's
// PascalCase fields; what each category reads of it is in the device and
// the bridge, this file knows the frame.

export const PROTOCOL_VERSION = '3.0';

/** The categories this emulator answers (an Abort is answered with an empty 200, no body). */
export const CATEGORIES = ['Diagnosis', 'Payment', 'Abort', 'TransactionStatus', 'Reversal', 'Reconciliation'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface MessageHeader {
  ProtocolVersion?: string;
  MessageClass: string;
  MessageCategory: string;
  MessageType: string;
  ServiceID: string;
  SaleID: string;
  POIID: string;
  [field: string]: unknown;
}

export type Body = Record<string, unknown>;

/** A plaintext message: its header and its one body. */
export interface NexoMessage {
  header: MessageHeader;
  body: Body;
}

/** nexo's Result and ErrorCondition, as a response's Response carries them. */
export type Result = 'Success' | 'Failure' | 'Partial';
export type ErrorCondition =
  | 'Aborted'
  | 'Busy'
  | 'Cancel'
  | 'DeviceOut'
  | 'InProgress'
  | 'InvalidCard'
  | 'MessageFormat'
  | 'NotAllowed'
  | 'NotFound'
  | 'Refusal'
  | 'UnavailableService'
  | 'WrongPIN';

export interface ResponseField {
  Result: Result;
  ErrorCondition?: ErrorCondition;
  AdditionalResponse?: string;
}

/** A ServiceID: 1 to 10 characters, unique per SaleID for 48 hours. */
export const isServiceId = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= 10;

export const bodyName = (category: string, type: 'Request' | 'Response') => `${category}${type}`;

/** The answer's header: the request's, echoed, as a Response. */
export function responseHeader(request: MessageHeader): MessageHeader {
  return {
    ProtocolVersion: request.ProtocolVersion ?? PROTOCOL_VERSION,
    MessageClass: request.MessageClass,
    MessageCategory: request.MessageCategory,
    MessageType: 'Response',
    ServiceID: request.ServiceID,
    SaleID: request.SaleID,
    POIID: request.POIID,
  };
}

/** AdditionalResponse: URL-encoded key=value pairs, as Adyen's terminals send them. */
export function additionalResponse(fields: Record<string, string | number | boolean>): string {
  return new URLSearchParams(Object.entries(fields).map(([key, value]) => [key, String(value)])).toString();
}

export function readAdditionalResponse(text: string | undefined): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(text ?? ''));
}

/** A message as JSON: `{SaleToPOIRequest|SaleToPOIResponse: {MessageHeader, <Category><Type>: body}}`. */
export function frame(kind: 'SaleToPOIRequest' | 'SaleToPOIResponse', message: NexoMessage): string {
  const type = kind === 'SaleToPOIRequest' ? 'Request' : 'Response';
  return JSON.stringify({
    [kind]: { MessageHeader: message.header, [bodyName(message.header.MessageCategory, type)]: message.body },
  });
}

/** What a POST's body turned out to be. */
export type Incoming =
  | { kind: 'secured'; message: SecuredMessage }
  | { kind: 'plain'; message: NexoMessage }
  | { kind: 'broken'; reason: string; header?: MessageHeader };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one side's envelope (`SaleToPOIRequest` from a cash register, `SaleToPOIResponse` from a terminal). */
export function readEnvelope(text: string, kind: 'SaleToPOIRequest' | 'SaleToPOIResponse'): Incoming {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'broken', reason: 'the body is not JSON' };
  }
  if (!isRecord(parsed)) return { kind: 'broken', reason: 'the body is not a JSON object' };
  const inner = parsed[kind];
  if (!isRecord(inner)) {
    const other = kind === 'SaleToPOIRequest' ? 'SaleToPOIResponse' : 'SaleToPOIRequest';
    const found = Object.keys(parsed)[0];
    return {
      kind: 'broken',
      reason:
        found === other || found === 'SaleToPOIResponse'
          ? `the body is a ${found}, where a ${kind} was expected`
          : `the body has no ${kind}`,
    };
  }
  const header = inner.MessageHeader;
  if (!isRecord(header)) return { kind: 'broken', reason: 'the message has no MessageHeader' };
  const typed = header as MessageHeader;
  // Either part of an envelope makes it one: unseal says what is wrong with its shape, as with a wrong key.
  if ('NexoBlob' in inner || 'SecurityTrailer' in inner)
    return { kind: 'secured', message: inner as unknown as SecuredMessage };
  const type = kind === 'SaleToPOIRequest' ? 'Request' : 'Response';
  const body = inner[bodyName(String(typed.MessageCategory), type)];
  if (!isRecord(body))
    return {
      kind: 'broken',
      reason: `the message has no ${bodyName(String(typed.MessageCategory), type)}`,
      header: typed,
    };
  return { kind: 'plain', message: { header: typed, body } };
}
