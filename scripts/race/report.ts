import { takenFirst } from '../../contracts/clients/scenario/race-order.js';
import type { Interleaving, OrderRun } from './race.js';
import { WHAT_IT_SHOWS, pathInWords } from './order-paths.js';

const statuses = ['PAID', 'VOIDED', 'DISCARDED', 'VOID_PENDING', 'PENDING'] as const;
// Each at least 4.5:1 against the white counts written on it.
const colours: Record<string, string> = {
  PAID: '#2e7d32',
  VOIDED: '#1565c0',
  DISCARDED: '#616161',
  VOID_PENDING: '#9a6700',
  PENDING: '#6d4c41',
};

export interface Summary {
  interleaving: string;
  /** What the interleaving sends: the caption under its bar. */
  caption: string;
  orders: number;
  merchant: Record<string, number>;
  pos: Record<string, number>;
  finals: Record<string, number>;
  /** Which side's request the server applied first, order by order: the merchant's (PENDING → DISCARDED) or the POS's (PENDING → PAID). */
  firstApplied: { merchant: number; pos: number };
  /** How the orders went, in words from their histories (order-paths.ts), with how many went each way. */
  paths: Record<string, number>;
  paid: number;
  voided: number;
}

/** `caption`: for an interleaving of a scenario of the operator's own (the bundled seven have theirs below). */
export function summarise(interleaving: string, runs: OrderRun[], caption?: string): Summary {
  const tally = (values: Array<string | number>) =>
    values.reduce<Record<string, number>>(
      (counts, value) => ({ ...counts, [value]: (counts[String(value)] ?? 0) + 1 }),
      {},
    );
  const money = (status: string) =>
    runs.filter((r) => r.final?.status === status).reduce((sum, r) => sum + r.amount, 0) / 100;
  return {
    interleaving,
    caption: captions[interleaving as Interleaving] ?? caption ?? interleaving,
    orders: runs.length,
    merchant: tally(runs.flatMap((r) => r.merchant.statuses)),
    pos: tally(runs.flatMap((r) => r.pos.statuses)),
    finals: tally(runs.map((r) => r.final?.status ?? 'LOST')),
    firstApplied: {
      merchant: runs.filter((r) => r.final && takenFirst(r.final.history) === 'merchant').length,
      pos: runs.filter((r) => r.final && takenFirst(r.final.history) === 'pos').length,
    },
    paths: tally(runs.map((r) => (r.final ? pathInWords(r.final.history, r.final.status) : 'lost: LOST'))),
    paid: money('PAID'),
    voided: money('VOIDED'),
  };
}

const counts = (tally: Record<string, number>) =>
  Object.entries(tally)
    .map(([key, n]) => `${key}×${n}`)
    .join(' ');

export function table(summaries: Summary[]): string {
  return [
    '| interleaving | orders | taken first: merchant / POS | merchant answers | POS answers | final states | recorded PAID | voided |',
    '|---|---|---|---|---|---|---|---|',
    ...summaries.map(
      (s) =>
        `| ${s.interleaving} | ${s.orders} | ${s.firstApplied.merchant} / ${s.firstApplied.pos} | ${counts(s.merchant)} | ${counts(s.pos)} | ${counts(s.finals)} | ${s.paid.toFixed(2)} USD | ${s.voided.toFixed(2)} USD |`,
    ),
  ].join('\n');
}

/** "18 orders: discarded first, …: VOIDED", one line a way the orders went, the commonest first. */
export function pathLines(summary: Summary): string[] {
  return Object.entries(summary.paths)
    .sort(([, a], [, b]) => b - a)
    .map(([words, n]) => `${n} ${n === 1 ? 'order' : 'orders'}: ${words}`);
}

/** How to read the table, and what each interleaving run sends: printed under it everywhere it appears. */
export function legend(summaries: Summary[]): string {
  return [
    'How to read it:',
    "- taken first: how many orders the server changed first on the merchant's invalidation (PENDING → DISCARDED) or on the POS's payment (PENDING → PAID).",
    '- merchant answers, POS answers: the HTTP statuses each side got, with how many (200×20: twenty answers 200; 409 is a refusal of a transition the order no longer allows).',
    '- final states: where each order ended once the POS confirmed the voids the merchant asked for (PAID: the payment stands; VOIDED: collected, then given back).',
    '',
    'What each interleaving sends, and how its orders went (from their histories):',
    ...summaries.flatMap((s) => [`- ${s.interleaving}: ${s.caption}.`, ...pathLines(s).map((line) => `  - ${line}`)]),
  ].join('\n');
}

export function markdown(summaries: Summary[], failures: string[], seed: number): string {
  return `# Discard versus commit: race report

${WHAT_IT_SHOWS}

Seed ${seed}. Each order received the merchant's invalidation and the POS's payment confirmation under the named interleaving; voids the merchant asked for were then confirmed by the POS.

${table(summaries)}

${legend(summaries)}

![Final states per interleaving](race.svg)

## Invariants

- Every answer is 2xx or 409.
- No order is lost, and every history is a chain of legal transitions from PENDING to the final state.
- Money the POS collected is recorded as PAID, or goes through VOID_PENDING to VOIDED when the merchant asked to invalidate; an order is never PAID without an accepted payment.

${failures.length === 0 ? '**All invariants hold.**' : `**${failures.length} violations:**\n\n${failures.map((f) => `- ${f}`).join('\n')}`}
`;
}

/** What each interleaving sends, in order: the caption under its bar. */
export const captions: Record<Interleaving, string> = {
  'discard-first': 'Merchant discards, then the POS commits',
  'commit-first': 'POS commits, then the merchant discards',
  simultaneous: 'Both sent at the same instant',
  'merchant-delayed': 'POS commits; the discard follows 1-15 ms later',
  'pos-delayed': 'Merchant discards; the commit follows 1-15 ms later',
  'both-jittered': 'Each side waits its own 0-8 ms, drawn per order: either may arrive first',
  'lost-answer-retry':
    "Both sides send, lose the first answer and send again; the merchant's repeat of a discard is taken as the discard it is, so an order paid after the first discard is voided by the repeat",
};

/** Splits `text` into lines of at most `width` characters, at spaces: an SVG text does not wrap by itself. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * One horizontal bar per interleaving, stacked by final state with the count
 * in each segment, on an axis of orders; beside it the 409 answers of each
 * side and the money recorded PAID and VOIDED; under it what the
 * interleaving sends. The legend lists only states that occur.
 */
export function svg(summaries: Summary[]): string {
  const left = 20;
  const barArea = 420;
  const top = 56;
  const width = left + barArea + 350;
  // About 5.6 px a character at 10 px sans-serif: the captions wrap inside the picture's width.
  const captionLines = summaries.map((summary) => wrap(summary.caption, Math.floor((width - 2 * left) / 5.6)));
  // Under the caption, how the orders went: the words that explain the bar's counts.
  const pathText = summaries.map((summary) =>
    pathLines(summary).flatMap((line) => wrap(line, Math.floor((width - 2 * left) / 5.6))),
  );
  const rowTops = captionLines.reduce<number[]>(
    (tops, lines, i) => [...tops, tops[i]! + 50 + (lines.length + pathText[i]!.length) * 13],
    [top],
  );
  const max = Math.max(1, ...summaries.map((s) => s.orders));
  const scale = barArea / max;
  const occurring = statuses.filter((status) => summaries.some((s) => s.finals[status]));
  const rows = summaries.map((summary, index) => {
    const y = rowTops[index]!;
    let x = left;
    const segments = occurring
      .filter((status) => summary.finals[status])
      .map((status) => {
        const n = summary.finals[status]!;
        const w = n * scale;
        const segment =
          `<rect x="${x.toFixed(1)}" y="${y + 16}" width="${w.toFixed(1)}" height="22" fill="${colours[status]}"><title>${status}: ${n}</title></rect>` +
          (w >= 26
            ? `<text x="${(x + w / 2).toFixed(1)}" y="${y + 31}" font-size="11" text-anchor="middle" fill="#fff">${n}</text>`
            : '');
        x += w;
        return segment;
      })
      .join('');
    // One fact a line: at 11 px each stays inside the 350 px beside the bar.
    const beside = [
      `taken first: merchant ${summary.firstApplied.merchant}, POS ${summary.firstApplied.pos}`,
      `409 refusals: merchant ${summary.merchant['409'] ?? 0}, POS ${summary.pos['409'] ?? 0}`,
      `PAID ${summary.paid.toFixed(2)} USD · VOIDED ${summary.voided.toFixed(2)} USD`,
    ];
    return `<g>
<text x="${left}" y="${y + 11}" font-size="12" font-weight="bold">${escapeXml(summary.interleaving)}</text>
${segments}
${beside.map((line, i) => `<text x="${left + barArea + 12}" y="${y + 14 + i * 13}" font-size="11">${escapeXml(line)}</text>`).join('\n')}
${captionLines[index]!.map((line, i) => `<text x="${left}" y="${y + 52 + i * 13}" font-size="10" fill="#444">${escapeXml(line)}</text>`).join('\n')}
${pathText[index]!.map((line, i) => `<text x="${left}" y="${y + 52 + (captionLines[index]!.length + i) * 13}" font-size="10" fill="#222">${escapeXml(line)}</text>`).join('\n')}
</g>`;
  });
  const axisY = rowTops[summaries.length]!;
  const axis = axisSvg({ left, barArea, y: axisY, max });
  const legend = occurring
    .map(
      (status, i) =>
        `<rect x="${left + i * 120}" y="30" width="12" height="12" fill="${colours[status]}"/><text x="${left + i * 120 + 17}" y="40" font-size="11">${status}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${axisY + 44}" viewBox="0 0 ${width} ${axisY + 44}" font-family="sans-serif" role="img" aria-labelledby="race-title race-desc">
<title id="race-title">Discard versus commit: final state of each order, per interleaving</title>
<desc id="race-desc">${escapeXml(describeRace(summaries))}</desc>
<rect width="100%" height="100%" fill="#fff"/>
<text x="${left}" y="18" font-size="14" font-weight="bold">Discard versus commit: final state of each order, per interleaving</text>
${legend}
${rows.join('\n')}
${axis}
</svg>
`;
}

/** The axis of orders under the bars, with ticks at quarters. */
function axisSvg({ left, barArea, y, max }: { left: number; barArea: number; y: number; max: number }): string {
  const scale = barArea / max;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * max)).filter((n, i, all) => all.indexOf(n) === i);
  return (
    `<line x1="${left}" y1="${y}" x2="${left + barArea}" y2="${y}" stroke="#444"/>` +
    ticks
      .map(
        (n) =>
          `<line x1="${left + n * scale}" y1="${y}" x2="${left + n * scale}" y2="${y + 5}" stroke="#444"/><text x="${left + n * scale}" y="${y + 17}" font-size="10" text-anchor="middle">${n}</text>`,
      )
      .join('') +
    `<text x="${left + barArea / 2}" y="${y + 32}" font-size="11" text-anchor="middle">orders (final state after the POS confirmed the voids asked for)</text>`
  );
}

/** The picture in words, for a reader that cannot see it. */
function describeRace(summaries: Summary[]): string {
  const total = summaries.reduce((n, s) => n + s.orders, 0);
  return `${total} orders in ${summaries.length} interleavings. ${summaries
    .map(
      (s) =>
        `${s.interleaving}: ${Object.entries(s.finals)
          .map(([k, n]) => `${n} ${k}`)
          .join(', ')} (taken first: merchant ${s.firstApplied.merchant}, POS ${s.firstApplied.pos})`,
    )
    .join('; ')}.`;
}
