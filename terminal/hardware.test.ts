import t from 'tap';
import { Link } from './protocol/link.js';
import { decodeMessage } from './protocol/messages.js';
import { openPort, waitFor } from './testing/pty-pair.js';

// Runs only against real hardware: TERMINAL_TEST_PORT=/dev/ttyUSB0 npm test
const path = process.env.TERMINAL_TEST_PORT;

t.test('a real terminal on TERMINAL_TEST_PORT answers the poll', { skip: path ? false : 'set TERMINAL_TEST_PORT to a serial port with a terminal attached' }, async (t) => {
  const port = await openPort(path!);
  t.teardown(() => new Promise((resolve) => port.close(resolve)));
  const link = new Link(port);
  const answers: string[] = [];
  link.on('message', (payload: string) => answers.push(payload));
  await link.send('0100');
  await waitFor(() => answers.length > 0, 5000, 'the terminal to answer 0100');
  t.match(decodeMessage(answers[0]!), { code: '0110' });
});
