import { api, report } from './api.js';
import { $, button, el, table } from './dom.js';
import { minorMoney, when } from './format.js';
import { state } from './state.js';

// The POS side: a page of terminals (with each one's latest settlements)
// and a page of orders at a time. Once shown it follows the server every
// 5 s, and draws again only when something changed, so focus and scroll stay.

const TERMINALS_PER_PAGE = 10;
const ORDERS_PER_PAGE = 20;

interface Terminal {
  serialNumber: string;
  createdAt: string;
}
interface Order {
  orderId: string;
  terminal: string;
  amount: number;
  currency: string;
  status: string;
  history?: Array<{ from: string; to: string; at: string }>;
}
interface Settlement {
  batchNumber: string;
  transactionCount: number;
  closedAt: string;
  debitBatch?: unknown;
}

export async function loadPos(): Promise<void> {
  if (state.locked || !state.keys) return;
  try {
    const base = `/api/v1/merchants/${encodeURIComponent(state.keys.merchant_id)}`;
    const pos = state.pos;
    const terminals = await api<{ data: Terminal[] }>(`${base}/pos-terminals`, { apiToken: true });
    const orders = await api<{ data: Order[] }>(`${base}/transactions?size=${ORDERS_PER_PAGE}&page=${pos.ordersPage}`, {
      apiToken: true,
    });
    const pageOfTerminals = terminals.data.slice(
      (pos.terminalsPage - 1) * TERMINALS_PER_PAGE,
      pos.terminalsPage * TERMINALS_PER_PAGE,
    );
    const settlements: Array<{ serial: string; data: Settlement[] }> = [];
    for (const terminal of pageOfTerminals) {
      const latest = await api<{ data: Settlement[] }>(
        `${base}/pos-terminals/${encodeURIComponent(terminal.serialNumber)}/settlements?sort=-closedAt&size=10`,
        { apiToken: true },
      );
      settlements.push({ serial: terminal.serialNumber, data: latest.data });
    }
    const seen = JSON.stringify([terminals.data, orders.data, settlements, pos.terminalsPage, pos.ordersPage]);
    if (seen !== pos.seen) {
      pos.seen = seen;
      const pages = Math.max(1, Math.ceil(terminals.data.length / TERMINALS_PER_PAGE));
      const pager = (label: string, page: number, last: boolean, move: (step: number) => void) => {
        const bar = el('div', undefined, { class: 'bar' });
        const back = button(`Previous ${label}`, () => move(-1));
        const next = button(`Next ${label}`, () => move(1));
        back.disabled = page === 1;
        next.disabled = last;
        bar.append(back, el('span', `${label}, page ${page}`), next);
        return bar;
      };
      const movePos = (key: 'terminalsPage' | 'ordersPage') => (step: number) => {
        pos[key] = Math.max(1, pos[key] + step);
        void loadPos();
      };
      const history = (order: Order) => (order.history ?? []).map((h) => `${h.from}→${h.to} ${h.at}`).join('; ');
      const parts = [
        table(
          `Terminals (${terminals.data.length})`,
          ['Serial', 'Created'],
          pageOfTerminals.map((terminal) => [terminal.serialNumber, when(terminal.createdAt)]),
        ),
        pager('terminals', pos.terminalsPage, pos.terminalsPage >= pages, movePos('terminalsPage')),
        table(
          'Orders, newest first',
          ['Order', 'Terminal', 'Amount', 'Status', 'History'],
          orders.data.map((order) => [
            order.orderId,
            order.terminal,
            minorMoney(order.amount, order.currency),
            order.status,
            history(order),
          ]),
        ),
        pager('orders', pos.ordersPage, orders.data.length < ORDERS_PER_PAGE, movePos('ordersPage')),
      ];
      for (const each of settlements) {
        parts.push(
          table(
            `Settlements of ${each.serial}, latest first (10)`,
            ['Batch', 'Transactions', 'Closed', 'Debit batch'],
            each.data.map((s) => [s.batchNumber, s.transactionCount, when(s.closedAt), s.debitBatch]),
          ),
        );
      }
      $('pos').replaceChildren(...parts);
    }
    $('pos-result').textContent = `${terminals.data.length} terminal(s); orders page ${pos.ordersPage}. Updated live.`;
    if (pos.timer) clearTimeout(pos.timer);
    pos.timer = setTimeout(() => void loadPos(), 5000);
  } catch (error) {
    report(error);
  }
}
