import { api, report } from './api.js';
import { $, button, copyButton, definitions, el, urlText } from './dom.js';
import { refreshRelativeTimes } from './format.js';
import { state } from './state.js';
import type { Keys } from './types.js';

// The account's keys (every secret masked alike until revealed), the
// integration checklist, and the account's clock with the buttons that
// move it.

export async function loadProgress(): Promise<void> {
  const progress = await api<{ steps: Array<{ title: string; done: boolean }> }>('/console/progress');
  const list = $('progress');
  progress.steps.forEach((step, i) => {
    const text = `${step.done ? '✓ ' : '○ '}${step.title}${step.done ? '' : ' (to do)'}`;
    let item = list.children[i];
    if (!item) list.append((item = el('li')));
    if (item.textContent !== text) {
      item.textContent = text;
      item.className = step.done ? 'done' : 'todo';
    }
  });
}

/** A secret shown masked (its kind and last 4 characters), with a button that reveals it and one that copies it. */
function secretField(label: string, secret: string): HTMLElement[] {
  const masked = secret.slice(0, secret.indexOf('_') + 1) + '•'.repeat(12) + secret.slice(-4);
  const shown = el('pre', masked, { 'data-secret': label });
  const reveal = button(
    `Reveal ${label}`,
    () => {
      const revealed = reveal.getAttribute('aria-pressed') !== 'true';
      shown.textContent = revealed ? secret : masked;
      reveal.setAttribute('aria-pressed', String(revealed));
      reveal.textContent = `${revealed ? 'Hide' : 'Reveal'} ${label}`;
    },
    { 'aria-pressed': 'false' },
  );
  const box = el('div', undefined, { class: 'bar' });
  box.append(reveal, copyButton(label, secret));
  return [el('p', label[0]!.toUpperCase() + label.slice(1)), shown, box];
}

export function showKeys(keys: Keys): void {
  const box = el('div');
  for (const key of keys.keys)
    box.append(...secretField('API token', key.token), ...secretField('webhook secret', key.webhook_secret));
  box.append(el('p', 'Default receivers'));
  const receivers = el('dl', undefined, { id: 'receivers' });
  const add = definitions(receivers);
  for (const [name, url] of Object.entries(keys.hooks)) add(name, urlText(url));
  box.append(receivers);
  $('keys').replaceChildren(box);
}

/** The account's clock, read once from the server and then ticking here each second (no request per tick). */
export async function loadClock(): Promise<void> {
  const clock = await api<{ now: string; offset_ms: number }>('/control/clock', { apiToken: true });
  state.clockBase = { at: Date.parse(clock.now), readAt: Date.now(), offset: clock.offset_ms };
  showClock();
  if (state.clockTimer) clearInterval(state.clockTimer);
  state.clockTimer = setInterval(showClock, 1000);
}

function showClock(): void {
  const base = state.clockBase;
  if (!base) return;
  const now = new Date(base.at + (Date.now() - base.readAt)).toISOString();
  $('clock').textContent =
    `${now.slice(0, 19).replace('T', ' ')} UTC${base.offset ? ` (ahead by ${Math.round(base.offset / 1000)} s)` : ''}`;
  $('clock').title = now;
  refreshRelativeTimes();
}

const DUE_WORDS: Record<string, string> = {
  webhook_attempt: 'the next webhook attempt',
  accreditation: 'the scheduled accreditation',
};

/** The buttons that move the account's clock: by a step, or to what is due next. */
export function wireClock(): void {
  for (const step of document.querySelectorAll<HTMLButtonElement>('[data-advance]')) {
    step.addEventListener('click', async () => {
      try {
        await api('/control/clock/advance', {
          method: 'POST',
          json: { ms: Number(step.dataset.advance) },
          apiToken: true,
        });
        await loadClock();
        $('clock-result').textContent = `Clock moved ${step.textContent}.`;
      } catch (error) {
        report(error);
      }
    });
  }
  $('advance-next').addEventListener('click', async () => {
    try {
      const due = await api<{ next: { in_ms: number; kind: string; session_id: string } | null }>(
        '/control/clock/next',
        { apiToken: true },
      );
      if (!due.next)
        return void ($('clock-result').textContent = 'Nothing is due: no webhook retry or accreditation waits.');
      await api('/control/clock/advance', {
        method: 'POST',
        json: { ms: Math.max(1, due.next.in_ms) },
        apiToken: true,
      });
      await loadClock();
      $('clock-result').textContent =
        `Clock moved ${Math.round(due.next.in_ms / 1000)} s, to ${DUE_WORDS[due.next.kind]} of ${due.next.session_id}.`;
    } catch (error) {
      report(error);
    }
  });
}
