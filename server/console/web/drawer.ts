import { shellQuote } from '../../../contracts/common/shell-quote.js';
import { api, Stopped } from './api.js';
import { $, copyButton, definitions, el, field, urlText } from './dom.js';
import { statusBadge } from './format.js';
import { state } from './state.js';
import type { ShownAttempt, SignedParts, TraceEntry } from './types.js';

// The event panel: what an event was, every attempt to deliver it, its
// signed body with a curl to replay it and a check of its signature, and a
// resend; shown as a drawer under the row it details.

/** What was signed, and how, for an entry that carries a webhook: the body, its headers, the signature. */
function signedParts(entry: TraceEntry | null): SignedParts | null {
  if (!entry) return null;
  if (entry.type === 'webhook.emitted')
    return { body: entry.payload!, timestamp: entry.at, signature: entry.signature!, key: entry.idempotency_key! };
  if (entry.type === 'webhook.received' && entry.headers) {
    const h = entry.headers;
    return {
      body: entry.raw_body!,
      timestamp: h['svc-timestamp']!,
      signature: h['svc-signature']!,
      key: h['idempotency-key']!,
    };
  }
  // An attempt carries the headers it sent; its body is its event's (the same bytes every attempt).
  if (entry.type === 'webhook.attempt' && entry.request_headers && entry.body !== undefined) {
    const h = entry.request_headers;
    return {
      body: entry.body,
      timestamp: h['svc-timestamp']!,
      signature: h['svc-signature']!,
      key: h['idempotency-key']!,
    };
  }
  return null;
}

const curlFor = (url: string | null | undefined, parts: SignedParts) =>
  `curl -X POST ${url ? shellQuote(url) : 'YOUR_RECEIVER_URL'} -H ${shellQuote('content-type: application/json')} -H ${shellQuote(`svc-signature: ${parts.signature}`)} -H ${shellQuote(
    `svc-timestamp: ${parts.timestamp}`,
  )} -H ${shellQuote(`idempotency-key: ${parts.key}`)} --data-binary ${shellQuote(parts.body)}`;

/** One attempt, whole: when, where, how it was routed, what was sent and what came back. */
function attemptBlock(attempt: TraceEntry, body: string | undefined): HTMLDivElement {
  const box = el('div', undefined, { class: 'attempt', 'data-attempt': String(attempt.attempt) });
  const title = el('h4', `Attempt ${attempt.attempt}${attempt.manual ? ' (resent by hand)' : ''} `);
  title.append(statusBadge(attempt));
  box.append(title);
  const fields = el('dl');
  const add = definitions(fields);
  add('When', el('time', attempt.at, { datetime: attempt.at, title: attempt.at }));
  add('To', attempt.url ? urlText(attempt.url) : 'no webhook_url');
  add('Routing', attempt.routing);
  add('Took', `${attempt.duration_ms} ms`);
  if (attempt.error) add('Why no answer', attempt.error);
  add(
    'Answer',
    el(
      'pre',
      attempt.response_body !== null && attempt.response_body !== undefined
        ? attempt.response_body || '(empty)'
        : '(not kept: an attempt from before answers were kept)',
    ),
  );
  const sent = attempt.request_headers;
  if (sent) {
    add(
      'Request headers',
      el(
        'pre',
        Object.entries(sent)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\n'),
      ),
    );
    if (body !== undefined) {
      const curl = curlFor(attempt.url, {
        body,
        signature: sent['svc-signature']!,
        timestamp: sent['svc-timestamp']!,
        key: sent['idempotency-key']!,
      });
      add('Replay', [el('pre', curl), copyButton(`curl of attempt ${attempt.attempt}`, curl)]);
    }
  }
  box.append(fields);
  return box;
}

/** The drawer: the event panel, moved into a row just under the row it details. */
function openDrawer(row: Element | null): void {
  const panel = $('event-panel');
  if (!row) return void $('event-home').append(panel);
  let drawer = document.getElementById('event-drawer');
  if (!drawer) {
    drawer = el('tr', undefined, { id: 'event-drawer', class: 'drawer' });
    drawer.append(el('td', undefined, { colspan: '4' }));
  }
  row.after(drawer);
  drawer.firstChild!.appendChild(panel);
}

export function closeDrawer(): void {
  if (state.event && location.hash === `#${state.event.event_id ?? state.event.id}`)
    history.replaceState(null, '', location.pathname + location.search);
  $('event-panel').hidden = true;
  $('event-home').append($('event-panel'));
  document.getElementById('event-drawer')?.remove();
}

/** The row the drawer is open under, if it is. */
export const drawerRow = (): Element | null => document.getElementById('event-drawer')?.previousElementSibling ?? null;

/** Opens the entry `id` in the drawer under `row`; a live redraw (`live`) keeps the focus where it is. */
export async function showEvent(id: string, row: Element | null, how: { live?: boolean } = {}): Promise<void> {
  const entry = state.entries.get(id);
  if (!entry) return;
  const box = $('event-body');
  box.replaceChildren();
  $('event-title').textContent = `${entry.type} at ${entry.at}`;
  // The event's attempts and its signed body, whichever of its entries was opened.
  let attempts: TraceEntry[] = [];
  let emitted = entry.type === 'webhook.emitted' ? entry : null;
  if (entry.event_id) {
    const params = `limit=1000${entry.session_id ? `&session_id=${encodeURIComponent(entry.session_id)}` : ''}`;
    const related = await api<{ data: TraceEntry[] }>(`/console/trace?type=webhook.attempt&${params}`).catch(() => ({
      data: [] as TraceEntry[],
    }));
    attempts = related.data.filter((attempt) => attempt.event_id === entry.event_id).reverse();
    if (!emitted) {
      const found = await api<{ data: TraceEntry[] }>(`/console/trace?type=webhook.emitted&${params}`).catch(() => ({
        data: [] as TraceEntry[],
      }));
      emitted = found.data.find((each) => each.event_id === entry.event_id) ?? null;
    }
  }
  const body = emitted ? emitted.payload : undefined;
  state.event = entry.type === 'webhook.attempt' ? { ...entry, ...(body !== undefined ? { body } : {}) } : entry;
  const parts = signedParts(state.event) ?? signedParts(emitted);
  if (entry.event_id) {
    box.append(el('h3', 'Attempts'));
    if (attempts.length === 0) box.append(el('p', 'None yet.'));
    // Newest first: the one that explains the current state is on top.
    for (const attempt of [...attempts].reverse()) box.append(attemptBlock(attempt, body));
    box.append(el('h3', 'Resend'), resendForm(entry, attempts[attempts.length - 1], id));
  }
  if (parts) {
    let pretty = parts.body;
    try {
      pretty = JSON.stringify(JSON.parse(parts.body), null, 2);
    } catch {
      // not JSON: shown as it came
    }
    const headers = `content-type: application/json\nsvc-signature: ${parts.signature}\nsvc-timestamp: ${parts.timestamp}\nidempotency-key: ${parts.key}`;
    const curl = curlFor(null, parts);
    box.append(el('h3', 'Headers'), el('pre', headers), copyButton('headers', headers));
    box.append(el('h3', 'Payload'), el('pre', pretty), copyButton('raw body', parts.body));
    box.append(el('h3', 'Signature'), el('pre', parts.signature), copyButton('signature', parts.signature));
    box.append(el('h3', 'Replay it to your receiver'), el('pre', curl), copyButton('curl', curl));
  }
  box.append(el('h3', 'Everything recorded'), el('pre', JSON.stringify(entry, null, 2)));
  $('verify').hidden = !parts;
  state.verifyParts = parts;
  $('verify-result').textContent = '';
  openDrawer(row);
  $('event-panel').hidden = false;
  if (how.live) return;
  // The address names what is open (#evt_…), to share or reload; set without a hashchange, which would open it again.
  history.replaceState(null, '', `#${entry.event_id ?? entry.id}`);
  $('event-title').focus();
}

/** The drawer's resend: to the last attempt's URL, or to one typed instead. */
function resendForm(entry: TraceEntry, last: TraceEntry | undefined, id: string): HTMLFormElement {
  const eventId = entry.event_id!;
  const form = el('form', undefined, { class: 'bar', id: 'drawer-resend' });
  const input = el('input', undefined, {
    id: 'drawer-resend-url',
    type: 'url',
    size: '40',
    value: last?.url || state.session?.webhook_url || '',
  });
  // What the last resend of this event got stays said when the drawer is drawn again (a live update).
  const result = el('span', state.resent.get(`drawer:${eventId}`) ?? '', {
    role: 'status',
    id: 'drawer-resend-result',
  });
  form.append(
    el('label', 'Resend to', { for: 'drawer-resend-url' }),
    input,
    el('button', 'Resend', { type: 'submit' }),
    result,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    result.textContent = 'resending…';
    try {
      const url = input.value.trim();
      const answer = await api<ShownAttempt>(`/console/webhooks/${encodeURIComponent(eventId)}/resend`, {
        method: 'POST',
        ...(url && url !== last?.url ? { json: { url } } : {}),
      });
      state.resent.set(
        `drawer:${eventId}`,
        `Attempt ${answer.attempt} to ${answer.url}: ${answer.status ?? answer.error} (${answer.routing}, ${answer.duration_ms} ms)`,
      );
      await showEvent(id, drawerRow(), { live: true });
    } catch (error) {
      if (!(error instanceof Stopped)) result.textContent = `Resend failed: ${(error as Error).message}`;
    }
  });
  return form;
}

async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The drawer's own controls: close, and the signature check with the reader's secret (computed here, never sent). */
export function wireDrawer(): void {
  $('event-close').addEventListener('click', closeDrawer);
  $('verify').addEventListener('submit', async (event) => {
    event.preventDefault();
    const parts = state.verifyParts;
    if (!parts) return;
    const expected = await hmacHex(field('verify-secret').value.trim(), `${parts.timestamp}.${parts.body}`);
    const ok = expected === parts.signature;
    $('verify-result').textContent = ok
      ? '✓ The signature matches this secret.'
      : '✗ It does not match: another secret, or the body was changed.';
    $('verify-result').className = ok ? 'ok' : 'bad';
  });
}
