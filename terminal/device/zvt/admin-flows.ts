// The emulated ZVT terminal's administration: registration (06 00), the status
// enquiry (05 01) and the repeat receipt (06 20), each as the terminal works
// it with the cash register (PA00P015 §2.1, §2.20, §2.56).
import { bcdNumber, packBcd, varLength } from '../../protocol/zvt/bcd.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { command, ERRORS, EURO, POSITIVE } from '../../protocol/zvt/messages.js';
import { encodeTlv, tlv, constructed } from '../../protocol/zvt/tlv.js';
import { apdu } from '../../protocol/zvt/apdu.js';
import type { Conversation } from './conversation.js';
import { WIDTH } from './receipts.js';
import { SOFTWARE_VERSION, printReceipt, complete, abort } from './flow-steps.js';

/** Repeat receipt (06 20): the last stored receipt; its status information when service byte bit 0 asks. */
export async function repeatReceipt(c: Conversation, serviceByte: number): Promise<void> {
  await c.answer(POSITIVE);
  const last = c.state.lastReceipt;
  if (!last) {
    c.log('repeat receipt: no receipt stored');
    return abort(c, ERRORS.functionNotPossible);
  }
  if (serviceByte & 0x01) {
    const reply = await c.tell(command('statusInformation', Buffer.from(last.statusInformation, 'hex')));
    if (!reply.answered) return c.giveUpLine(reply.why);
  }
  if (!(serviceByte & 0x02)) await printReceipt(c, last.lines, last.admin);
  await complete(c);
}

/** The name a status enquiry gives the device (tag 1F40). */
export const DEVICE_NAME = 'svc-pos-sim ZVT';

/**
 * What a status enquiry tells of the terminal when service byte bit 2 asks (§2.56.5): its terminal id (1F44), and
 * in E4 its device name, software version, serial number (BCD) and device state.
 */
function deviceInformation(c: Conversation): Buffer {
  return encodeFields([
    {
      bmp: 0x06,
      value: encodeTlv([
        tlv('1F44', packBcd(c.state.terminalId)),
        constructed('E4', [
          tlv('1F40', DEVICE_NAME),
          tlv('1F41', SOFTWARE_VERSION),
          tlv('1F42', packBcd(c.state.serialNumber)),
          tlv('1F43', Buffer.of(c.state.terminalStatus === 0x00 ? 0x00 : 0x01)),
        ]),
      ]),
    },
  ]);
}

/**
 * Status enquiry (05 01): the software version (unless service byte bit 1), the terminal status, and the device
 * information when bit 2 asks for it.
 */
export async function statusEnquiry(c: Conversation, serviceByte: number): Promise<void> {
  await c.answer(POSITIVE);
  const version = Buffer.from(SOFTWARE_VERSION, 'latin1');
  const data = Buffer.concat([
    serviceByte & 0x02 ? Buffer.alloc(0) : Buffer.concat([varLength(version.length, 3), version]),
    Buffer.of(c.state.terminalStatus),
    serviceByte & 0x04 ? deviceInformation(c) : Buffer.alloc(0),
  ]);
  await complete(c, data);
}

/** The commands this terminal carries out, for tag 26 of its registration's completion. */
export const PERMITTED = [
  0x0600, 0x0601, 0x0602, 0x0618, 0x061a, 0x061b, 0x0620, 0x0622, 0x0623, 0x0624, 0x0625, 0x0630, 0x0631, 0x0650,
  0x0670, 0x0693, 0x06b0, 0x06c0, 0x06e0, 0x0501,
];

export interface RegistrationRequest {
  configByte: number;
  currency?: number;
  /** The registration's TLV container: whether 06 D3 is permitted, and the ECR printer's width (tag 12). */
  tlv?: { textBlocks: boolean; lineWidth?: number };
}

/** Registration (06 00): the config byte in force from now; Completion with the status byte and terminal id. */
export async function register(c: Conversation, request: RegistrationRequest): Promise<void> {
  if (request.currency !== undefined && request.currency !== EURO)
    return c.answer(apdu(0x84, 0x1e, Buffer.of(ERRORS.wrongCurrency, 0x09, 0x78)));
  await c.answer(POSITIVE);
  c.commit({
    ...c.state,
    registration: {
      configByte: request.configByte,
      currency: request.currency !== undefined,
      tlv: request.tlv !== undefined,
      textBlocks: request.tlv?.textBlocks ?? false,
    },
  });
  c.log(`registered: config byte ${request.configByte.toString(16).padStart(2, '0')}`);
  const statusByte = c.state.terminalStatus === 0x51 ? 0x01 : 0x00;
  await complete(
    c,
    encodeFields([
      { bmp: 0x19, value: Buffer.of(statusByte) },
      { bmp: 0x29, value: packBcd(c.state.terminalId) },
      ...(request.currency !== undefined ? [{ bmp: 0x49, value: bcdNumber(EURO, 2) }] : []),
      ...(request.tlv
        ? [
            {
              bmp: 0x06,
              value: encodeTlv([
                constructed(
                  '26',
                  PERMITTED.map((code) => tlv('0A', Buffer.of(code >> 8, code & 0xff))),
                ),
                // Asked the ECR printer's width (tag 12), the terminal says the width its receipts use (§2.1).
                ...(request.tlv.lineWidth !== undefined ? [tlv('12', packBcd(String(WIDTH)))] : []),
              ]),
            },
          ]
        : []),
    ]),
  );
}
