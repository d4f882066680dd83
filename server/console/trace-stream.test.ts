import t from 'tap';
import { createLogger } from '../log.js';
import { catalog } from '../sessions/sessions-testkit.js';
import { startTestServer } from '../testing/test-server.js';
import { waitFor } from '../testing/wait-for.js';

// Closing a console tab ends its live trace: a normal end, never an error
// line (log alerting fires on those).

t.test('a client closing the live trace mid-stream is logged at debug, never as an error', async (t) => {
  const lines: Array<{ level: string; message: string; path?: string }> = [];
  const server = await startTestServer(
    t,
    {},
    createLogger('debug', (line) => void lines.push(JSON.parse(line))),
  );
  const { account } = await catalog(server);
  for (let tab = 0; tab < 3; tab += 1) {
    const controller = new AbortController();
    const response = await fetch(`${server.baseUrl}/console/trace/stream`, {
      headers: { authorization: `Bearer ${account.console_token}` },
      signal: controller.signal,
    });
    t.equal(response.status, 200, `tab ${tab + 1} streams`);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    t.match(first, /^event: ready/, 'the stream says it is ready');
    controller.abort();
    await reader.cancel().catch(() => undefined);
  }
  const ended = () => lines.filter((line) => line.level === 'debug' && line.path === '/console/trace/stream');
  await waitFor(() => ended().length === 3, 5000, 'the server to see the three tabs go');
  t.match(ended()[0], { message: 'client went away before the answer ended' });
  t.same(
    lines.filter((line) => line.level === 'error'),
    [],
    'no error line',
  );
});
