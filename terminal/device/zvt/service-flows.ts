import { packBcd } from '../../protocol/zvt/bcd.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { command, CONFIG, ERRORS, INTERMEDIATE, POSITIVE, TERMINAL_STATUS } from '../../protocol/zvt/messages.js';
import type { Conversation } from './conversation.js';
import { abort, acknowledged, complete, intermediate, printReceipt, SOFTWARE_VERSION } from './flow-steps.js';
import { adminReceipt, receiptRow, WIDTH } from './receipts.js';
import { noted } from './zvt-state.js';

// The emulated terminal's service commands (PA00P015 §2.17, §2.18, §2.21,
// §2.44-§2.46): diagnosis and initialisation (the host is emulated: both
// succeed, and clear the terminal status that asks for them), read card,
// reset, print system configuration, and set terminal id. None of them
// moves money; an administration receipt goes where the registration says.

/** Tag 1B of a diagnosis: what was diagnosed (PA00P015, TLV tag 1B). */
const DIAGNOSIS_TYPES: Readonly<Record<number, string>> = {
  0x01: 'line',
  0x02: 'extended',
  0x03: 'configuration',
  0x04: 'EMV configuration',
  0x05: 'EP2 configuration',
};

const two = (value: number) => String(value).padStart(2, '0');

/** 04 01: the host's date and time, for the cash register's clock (§3.4): AA YYMMDD, 0C HHMMSS. */
export function dateTimeData(at: Date): Buffer {
  return encodeFields([
    {
      bmp: 0xaa,
      value: packBcd(`${two(at.getUTCFullYear() % 100)}${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}`),
    },
    { bmp: 0x0c, value: packBcd(`${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}`) },
  ]);
}

/** Diagnosis (06 70): the host is asked, its date and time go to the cash register, status C2 is cleared. */
export async function diagnose(c: Conversation, diagnosisType: number): Promise<void> {
  await c.answer(POSITIVE);
  if (!(await intermediate(c, INTERMEDIATE.waitingForHost, 'the diagnosis did not run'))) return;
  const at = c.now();
  const type = DIAGNOSIS_TYPES[diagnosisType] ?? `type ${diagnosisType}`;
  const cleared = c.state.terminalStatus === TERMINAL_STATUS.diagnosisRequired;
  c.commit(
    noted(
      { ...c.state, terminalStatus: cleared ? TERMINAL_STATUS.ready : c.state.terminalStatus },
      at.toISOString(),
      `diagnosis (${type})${cleared ? ': status C2 cleared' : ''}`,
    ),
  );
  c.log(`diagnosis (${type}) done${cleared ? '; the terminal is ready again (status C2 cleared)' : ''}`);
  const dated = await acknowledged(c, command('setEcrDateTime', dateTimeData(at)));
  if (!dated.ok) {
    c.log(`the cash register did not take the date and time (${dated.why})`);
    if (!dated.lineWorks) return c.giveUpLine(dated.why);
  }
  await printReceipt(
    c,
    adminReceipt('DIAGNOSIS', c.state.terminalId, at.toISOString(), [receiptRow('Type:', type), '', 'DIAGNOSIS OK']),
    true,
  );
  await complete(c);
}

/** Initialisation (06 93): the host sends the terminal its parameters; status 51 is cleared. */
export async function initialise(c: Conversation): Promise<void> {
  await c.answer(POSITIVE);
  if (!(await intermediate(c, INTERMEDIATE.waitingForHost, 'the initialisation did not run'))) return;
  const at = c.now();
  const cleared = c.state.terminalStatus === TERMINAL_STATUS.initialisationRequired;
  c.commit(
    noted(
      { ...c.state, terminalStatus: cleared ? TERMINAL_STATUS.ready : c.state.terminalStatus },
      at.toISOString(),
      `initialisation of terminal ${c.state.terminalId}${cleared ? ': status 51 cleared' : ''}`,
    ),
  );
  c.log(
    `initialised as terminal ${c.state.terminalId}${cleared ? '; the terminal is ready again (status 51 cleared)' : ''}`,
  );
  await printReceipt(
    c,
    adminReceipt('INITIALISATION', c.state.terminalId, at.toISOString(), ['INITIALISATION OK']),
    true,
  );
  await complete(c);
}

/** Track 2 as bitmap 23 carries it, masked as the other card data: PAN, separator D, expiry YYMM, service code. */
function track2(card: { maskedPan: string; expiry: string }): Buffer {
  const nibbles = `${card.maskedPan}D${card.expiry}201`;
  return Buffer.from(nibbles.length % 2 === 0 ? nibbles : `${nibbles}F`, 'hex');
}

/**
 * Read card (06 C0): the card's data in status information, whose acknowledgement hands the line back (no
 * Completion); its time-out (seconds, 00 endless) ends it with 06 1E 6C, and so does 06 B0 meanwhile.
 */
export async function readCard(c: Conversation, timeoutSeconds: number | undefined): Promise<void> {
  await c.answer(POSITIVE);
  if (!(await intermediate(c, INTERMEDIATE.insertCard, 'no card was read'))) return;
  const timeoutMs = timeoutSeconds ? timeoutSeconds * 1000 : undefined;
  const presented = await c.presentCard(timeoutMs);
  if (presented !== 'card') {
    c.log(
      `read card: ${presented === 'timeout' ? `no card within ${timeoutSeconds} s` : 'aborted by the cash register'}`,
    );
    return abort(c, ERRORS.abortedByTimeoutOrKey);
  }
  const card = c.drawCard();
  c.log(`read card: ${card.name} ${card.maskedPan}`);
  const reply = await c.tell(
    command('statusInformation', encodeFields([{ bmp: 0x23, value: track2(card) }])),
    undefined,
    true,
  );
  if (!reply.answered) c.log(`the card data was not taken (${reply.why})`);
}

/** Reset terminal (06 18): it restarts; what it stored stays. */
export async function reset(c: Conversation): Promise<void> {
  await c.answer(POSITIVE);
  c.commit(noted(c.state, c.now().toISOString(), 'restarted by the cash register (06 18)'));
  c.log('restarted by the cash register (06 18)');
  await complete(c);
}

const hex = (value: number) => value.toString(16).toUpperCase().padStart(2, '0');

/** Print system configuration (06 1A): what the terminal is set to, on an administration receipt. */
export async function printConfiguration(c: Conversation): Promise<void> {
  await c.answer(POSITIVE);
  const { state } = c;
  const lines = adminReceipt('CONFIGURATION', state.terminalId, c.now().toISOString(), [
    'Software:',
    SOFTWARE_VERSION,
    receiptRow('Serial:', state.serialNumber),
    receiptRow('Status:', hex(state.terminalStatus)),
    receiptRow('Config byte:', hex(state.registration.configByte)),
    receiptRow('Receipts via ECR:', state.registration.configByte & CONFIG.printViaEcr ? 'yes' : 'no'),
    receiptRow('Currency:', 'EUR 978'),
    receiptRow('Receipt width:', String(WIDTH)),
    receiptRow('Turnover:', String(state.turnover.length)),
    receiptRow('Open pre-auths:', String(state.reservations.length)),
  ]);
  await printReceipt(c, lines, true);
  await complete(c);
}

/**
 * Set/reset terminal id (06 1B): only with an empty turnover (else 06 1E F0, an end of day is open). The new id
 * (or, without bitmap 29, the terminal's own) is in force at once and asks for an initialisation (status 51),
 * which cash registers send next.
 */
export async function setTerminalId(c: Conversation, terminalId: string | undefined): Promise<void> {
  await c.answer(POSITIVE);
  if (c.state.turnover.length > 0) {
    c.log(
      `set terminal id refused: ${c.state.turnover.length} transaction(s) in the turnover; run an end of day first`,
    );
    return abort(c, ERRORS.openEndOfDay);
  }
  const id = terminalId ?? c.state.serialNumber;
  c.commit(
    noted(
      { ...c.state, terminalId: id, terminalStatus: TERMINAL_STATUS.initialisationRequired },
      c.now().toISOString(),
      `terminal id set to ${id}: initialisation required`,
    ),
  );
  c.log(`terminal id ${id}${terminalId ? '' : ' (its own, reset)'}; initialisation required (status 51)`);
  await complete(c);
}
