import type { Interleaving, OrderRun } from './race.js';

const statuses = ['PAID', 'VOIDED', 'DISCARDED', 'VOID_PENDING', 'PENDING'] as const;
const colours: Record<string, string> = { PAID: '#2e7d32', VOIDED: '#1565c0', DISCARDED: '#9e9e9e', VOID_PENDING: '#f9a825', PENDING: '#6d4c41' };

export interface Summary {
  interleaving: Interleaving;
  orders: number;
  merchant: Record<string, number>;
  pos: Record<string, number>;
  finals: Record<string, number>;
  paid: number;
  voided: number;
}

export function summarise(interleaving: Interleaving, runs: OrderRun[]): Summary {
  const tally = (values: Array<string | number>) => values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[String(value)] ?? 0) + 1 }), {});
  const money = (status: string) => runs.filter((r) => r.final?.status === status).reduce((sum, r) => sum + r.amount, 0) / 100;
  return {
    interleaving,
    orders: runs.length,
    merchant: tally(runs.flatMap((r) => r.merchant.statuses)),
    pos: tally(runs.flatMap((r) => r.pos.statuses)),
    finals: tally(runs.map((r) => r.final?.status ?? 'LOST')),
    paid: money('PAID'),
    voided: money('VOIDED'),
  };
}

const counts = (tally: Record<string, number>) => Object.entries(tally).map(([key, n]) => `${key}×${n}`).join(' ');

export function table(summaries: Summary[]): string {
  return [
    '| interleaving | orders | merchant answers | POS answers | final states | recorded PAID | voided |',
    '|---|---|---|---|---|---|---|',
    ...summaries.map((s) => `| ${s.interleaving} | ${s.orders} | ${counts(s.merchant)} | ${counts(s.pos)} | ${counts(s.finals)} | ${s.paid.toFixed(2)} USD | ${s.voided.toFixed(2)} USD |`),
  ].join('\n');
}

export function markdown(summaries: Summary[], failures: string[], seed: number): string {
  return `# Discard versus commit: race report

Seed ${seed}. Each order received the merchant's invalidation and the POS's payment confirmation under the named interleaving; voids the merchant asked for were then confirmed by the POS.

${table(summaries)}

![Final states per interleaving](race.svg)

## Invariants

- Every answer is 2xx or 409.
- No order is lost, and every history is a chain of legal transitions from PENDING to the final state.
- Money the POS collected is recorded as PAID, or goes through VOID_PENDING to VOIDED when the merchant asked to invalidate; an order is never PAID without an accepted payment.

${failures.length === 0 ? '**All invariants hold.**' : `**${failures.length} violations:**\n\n${failures.map((f) => `- ${f}`).join('\n')}`}
`;
}

/** Stacked bars of final states per interleaving. */
export function svg(summaries: Summary[]): string {
  const barWidth = 70;
  const gap = 30;
  const height = 220;
  const top = 30;
  const width = summaries.length * (barWidth + gap) + gap + 140;
  const max = Math.max(1, ...summaries.map((s) => s.orders));
  const bars = summaries
    .map((summary, index) => {
      const x = gap + index * (barWidth + gap);
      let y = top + height;
      const segments = statuses
        .filter((status) => summary.finals[status])
        .map((status) => {
          const h = (summary.finals[status]! / max) * height;
          y -= h;
          return `<rect x="${x}" y="${y.toFixed(1)}" width="${barWidth}" height="${h.toFixed(1)}" fill="${colours[status]}"><title>${status}: ${summary.finals[status]}</title></rect>`;
        })
        .join('');
      return `${segments}<text x="${x + barWidth / 2}" y="${top + height + 16}" font-size="10" text-anchor="middle">${summary.interleaving}</text>`;
    })
    .join('\n');
  const legend = statuses
    .map((status, i) => `<rect x="${width - 130}" y="${top + i * 18}" width="12" height="12" fill="${colours[status]}"/><text x="${width - 112}" y="${top + i * 18 + 10}" font-size="11">${status}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top + height + 30}" font-family="sans-serif" role="img" aria-label="Final order states per interleaving">
<text x="${gap}" y="18" font-size="13" font-weight="bold">Final states per interleaving</text>
${bars}
${legend}
</svg>
`;
}
