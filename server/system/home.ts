import { escapeHtml, pageShell } from './page-shell.js';

// GET /: where a newcomer who opened the server in a browser starts.

export function homePage(version: string, publicUrl: string): string {
  const base = escapeHtml(publicUrl);
  return pageShell(
    'Payments simulator',
    `<h1>Payments simulator <span class="muted">${escapeHtml(version)}</span></h1>
<p>A sandbox of the payments interface: POS terminals and merchant orders, batch settlements, payment sessions with split and two-phase accreditation, signed webhooks, and a control plane for time and outcomes.</p>
<ul>
  <li><a href="/console">The console</a>: your keys, sessions, the integration checklist and the live trace.</li>
  <li><a href="/openapi.json">The OpenAPI document</a> of every operation.</li>
  <li><a href="/fidelidad">Fidelidad</a>: every difference from production, with this server's running values.</li>
  <li><a href="/health">Health</a>.</li>
</ul>
<h2>Two ways to start</h2>
<ul>
  <li><code>npm start</code>: this server on its embedded store (<code>PORT</code>, <code>DATA_DIR</code>), with nothing in it yet.</li>
  <li><code>npm run demo</code>: a server seeded with a demo world (terminals, orders in every state, settlements, sessions in every status); it prints the console token, the API token and the login, each on its own line.</li>
</ul>
<h2>First steps</h2>
<p>Register an account; the answer carries your API token and console token:</p>
<pre tabindex="0">curl -s -X POST ${base}/console/register -H 'content-type: application/json' \\
  -d '{"email":"you@example.com","password":"at least 8 characters"}'</pre>
<p>Create an agreement and a payment session with the API token (<code>sk_…</code>), open the session's <code>pay_url</code> in a browser and pay with a magic key, then watch its webhooks in the console. The README walks through it with every command.</p>`,
  );
}

/** A 16×16 icon (a dark blue disc), as an .ico of one 32-bit bitmap, made once at start. */
export const favicon: Buffer = (() => {
  const size = 16;
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      const inside = (x - 7.5) ** 2 + (y - 7.5) ** 2 <= 7.5 ** 2;
      // Rows bottom-up, BGRA.
      pixels.set(inside ? [0xd0, 0x57, 0x0b, 0xff] : [0, 0, 0, 0], ((size - 1 - y) * size + x) * 4);
    }
  }
  const mask = Buffer.alloc(size * 4); // 1 bit a pixel, rows padded to 4 bytes; alpha decides instead
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // colour and mask, stacked
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([header, pixels, mask]);
  const directory = Buffer.alloc(6 + 16);
  directory.writeUInt16LE(1, 2); // type: icon
  directory.writeUInt16LE(1, 4); // one image
  directory.writeUInt8(size, 6);
  directory.writeUInt8(size, 7);
  directory.writeUInt16LE(1, 10);
  directory.writeUInt16LE(32, 12);
  directory.writeUInt32LE(image.length, 14);
  directory.writeUInt32LE(directory.length, 18);
  return Buffer.concat([directory, image]);
})();
