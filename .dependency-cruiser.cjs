// The floors of the code base (docs/layout.md), checked by `npm run lint:deps` in `npm test`.
// contracts/ is the interface every side shares: the document and its pure helpers at the bottom, the clients of
// the interface on them (the scenario engine among them: scripted requests, which the console's runs play too),
// the conformance tools (suite, receiver grader) and their kits on top. server/ and
// terminal/ stand on contracts/ as peers that talk over HTTP (what both need is in contracts/common/; the
// terminal's tests may start a server); scripts/ stands on everything. Tests sit above all of it. Inside the
// terminal: errors.ts under all, protocol/ under the devices and the bridge, which know nothing of each other.
const TEST = '\\.test\\.ts$|-testkit\\.ts$';
const DOCUMENT = '^contracts/(?:[^/]+\\.ts|paths/|schemas/)';
const CONFORMANCE = '^contracts/(?:suite|receiver|testing)/';

/** A floor: code under `from` (tests left out) never imports `to`. */
const floor = (name, comment, from, to, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: TEST },
  to: { path: to, ...(allowed ? { pathNot: allowed } : {}) },
});

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment:
        'A module never reaches itself again through its imports (types included): split out what both sides need.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    floor(
      'contracts-stand-alone',
      'The interface knows nothing of who implements or drives it.',
      '^contracts/',
      '^(?:server|terminal|scripts|fixtures)/',
    ),
    floor(
      'document-below-tools',
      'The document and its helpers know nothing of the clients and conformance tools built on them.',
      DOCUMENT,
      '^contracts/(?:clients|suite|receiver|testing)/',
    ),
    floor(
      'clients-below-tools',
      'The clients of the interface know nothing of the conformance tools.',
      '^contracts/clients/',
      CONFORMANCE,
    ),
    {
      ...floor(
        'server-below-conformance-tools',
        'The server uses the interface and its clients (the scenario engine among them), never the tools that judge an implementation; its test kits may.',
        '^server/',
        CONFORMANCE,
      ),
      from: { path: '^server/', pathNot: `${TEST}|^server/testing/` },
    },
    floor(
      'store-adapters-apart',
      "The embedded store and the PostgreSQL store share only the port (server/store/*.ts), never each other's files.",
      '^server/store/embedded/',
      '^server/store/postgres/',
    ),
    floor(
      'store-adapters-apart-too',
      'The PostgreSQL store shares only the port with the embedded store.',
      '^server/store/postgres/',
      '^server/store/embedded/',
    ),
    floor(
      'store-port-below-adapters',
      'The store port and its contract know no adapter.',
      '^server/store/[^/]+\\.ts$',
      '^server/store/(?:embedded|postgres)/',
    ),
    floor(
      'server-below-terminal',
      'The server knows the terminal only over HTTP.',
      '^server/',
      '^(?:terminal|scripts)/',
    ),
    {
      ...floor(
        'terminal-beside-server',
        'The terminal talks to the server over HTTP only; what both need is in contracts/common/. Its tests and test kits may start a server.',
        '^terminal/',
        '^server/',
      ),
      from: { path: '^terminal/', pathNot: `${TEST}|/testing/` },
    },
    floor(
      'common-floor',
      'contracts/common/ is the floor under the server, the terminal and the interface: durable writes, quoting, seeded randomness, JUnit, missing tools. It imports none of them.',
      '^contracts/common/',
      '^(?:server|terminal|scripts|fixtures)/|^contracts/(?!common/)',
    ),
    floor('terminal-below-scripts', 'Scripts drive the terminal, not the reverse.', '^terminal/', '^scripts/'),
    floor(
      'terminal-errors-at-the-bottom',
      "The terminal's table of errors is under every part of it and imports none.",
      '^terminal/errors\\.ts$',
      '^terminal/(?!errors\\.ts$)',
    ),
    floor(
      'terminal-protocol-floor',
      'The protocol (frames, messages, APDUs, crypto) knows nothing of the devices, the bridge or the commands.',
      '^terminal/protocol/',
      '^terminal/(?:device|bridge|cli|transcript)/',
    ),
    floor(
      'devices-apart-from-the-bridge',
      'An emulated device and the bridge meet only on the line, never in code.',
      '^terminal/device/',
      '^terminal/bridge/',
    ),
    floor(
      'bridge-apart-from-devices',
      'The bridge drives any device, emulated or not.',
      '^terminal/bridge/',
      '^terminal/device/',
    ),
    floor(
      'devices-and-bridge-below-the-cli',
      "The devices and the bridge know nothing of the command line: a dialect's commands live in cli/<dialect>/.",
      '^terminal/(?:device|bridge)/',
      '^terminal/cli/',
    ),
    {
      name: 'no-test-code-in-products',
      comment: 'Shipped code never imports a test or a test kit (testing/ folders, *-testkit.ts).',
      severity: 'error',
      from: { path: '^(?:server|terminal|contracts|scripts)/', pathNot: `${TEST}|/testing/` },
      to: { path: `${TEST}|/testing/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(?:node_modules|dist|\\.tap|reports)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
