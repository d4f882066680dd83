import { api } from './api.js';
import { $, el } from './dom.js';
import { when } from './format.js';

// The account's relay, in a line: connected or not, since when, its cursor,
// what was resumed for it (GET /console/relay). Drawn again when the trace
// brings a relay entry.

interface RelayView {
  connected: boolean;
  connected_since: string | null;
  cursor: number | null;
  closed_at: string | null;
  close_code: number | null;
  last_resume: { at: string; count: number; left_out: number } | null;
  resumed_total: number;
  last_heard_ms_ago: number | null;
}

export async function loadRelay(): Promise<void> {
  const relay = await api<RelayView>('/console/relay');
  const line = $('relay-state');
  line.replaceChildren();
  if (!relay.connected_since) {
    line.append('never connected: run svc-relay to receive webhooks for local URLs on your machine');
    return;
  }
  if (relay.connected) {
    line.append(el('span', 'connected', { class: 'badge ok' }), ' since ', when(relay.connected_since));
    if (relay.last_heard_ms_ago !== null)
      line.append(`, last heard ${Math.round(relay.last_heard_ms_ago / 1000)} s ago`);
    line.append(relay.cursor === null ? ', first connection' : `, came back at position ${relay.cursor}`);
  } else {
    line.append(el('span', 'not connected', { class: 'badge bad' }), ' since ', when(relay.closed_at));
    line.append(`, closed with code ${relay.close_code}; what it misses is resent when it comes back`);
  }
  const resume = relay.last_resume;
  if (resume)
    line.append(
      `; last resume: ${resume.count} deliver${resume.count === 1 ? 'y' : 'ies'}${resume.left_out ? ` (${resume.left_out} left out)` : ''}, ${relay.resumed_total} in all`,
    );
}
