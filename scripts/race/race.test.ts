import t from 'tap';
import { merchantWithTerminal, startTestServer } from '../../server/testing/test-server.js';
import { checkInvariants, completeVoids, interleavings, seeded, type OrderRun, type RaceTarget } from './race.js';
import { bundledRaceFiles, loadRaceScenarios, playRace } from './race-scenarios.js';
import { captions, legend, markdown, pathLines, summarise, svg } from './report.js';
import { WHAT_IT_SHOWS, finalOfPath } from './order-paths.js';
import { runSerialRace } from './serial-race.js';
import { socatSkip } from '../../terminal/pty-pair.js';

t.test('the race scenarios keep the invariants over more than 100 orders under every interleaving', async (t) => {
  const server = await startTestServer(t);
  server.clock.set(Date.now()); // scenarios sign POS requests with the real time
  const merchant = await merchantWithTerminal(server);
  const given = {
    account: merchant.account,
    terminal: { serialNumber: merchant.serialNumber, secret: merchant.secret },
  };
  const races = await loadRaceScenarios(await bundledRaceFiles());
  t.same(
    races.map((race) => race.name),
    [...interleavings],
    'the bundled scenarios are the seven interleavings, in order',
  );
  const all: OrderRun[] = [];
  const summaries = [];
  for (const race of races) {
    const { runs, failures } = await playRace(server.baseUrl, given, race, 17, 42);
    t.same(failures, [], `${race.name}: every expectation of the scenario held`);
    all.push(...runs);
    summaries.push(summarise(race.name, runs));
  }
  t.ok(all.length >= 100, `${all.length} orders`);
  t.same(checkInvariants(all), [], 'no invariant broken');
  t.same(
    summaries.find((s) => s.interleaving === 'discard-first')!.finals,
    { PAID: 17 },
    'a commit after a discard records the payment',
  );
  t.same(
    summaries.find((s) => s.interleaving === 'commit-first')!.finals,
    { VOIDED: 17 },
    'a discard after the payment becomes a void',
  );
  const report = markdown(summaries, [], 42);
  for (const interleaving of interleavings) t.match(report, interleaving);
  t.match(report, /All invariants hold/);
  const picture = svg(summaries);
  t.match(picture, /^<svg[\s\S]*<\/svg>\n$/);
  t.match(picture, /<title id="race-title">/, 'titled for screen readers');
  t.match(picture, />17<\/text>/, 'counts in the segments');
  t.match(
    picture,
    /taken first: merchant \d+, POS \d+<\/text>\n<text [^>]*>409 refusals: merchant \d+, POS \d+/,
    'which side the server took first, and the 409s of each side',
  );
  // Every caption whole inside the picture: wrapped, never cut off at the right edge.
  const width = Number(/<svg[^>]* width="(\d+)"/.exec(picture)![1]);
  const captionLines = [...picture.matchAll(/<text x="20" y="\d+" font-size="10" fill="#444">([^<]*)<\/text>/g)].map(
    (m) => m[1]!,
  );
  t.ok(
    captionLines.every((line) => 20 + line.length * 5.6 <= width),
    `${captionLines.length} caption lines, each inside ${width} px`,
  );
  // And the facts beside each bar, at about 6.2 px a character of 11 px text.
  const beside = [...picture.matchAll(/<text x="(\d+)" y="\d+" font-size="11">([^<]*)<\/text>/g)].filter(
    (m) => Number(m[1]) > 20,
  );
  t.ok(
    beside.length >= 3 * interleavings.length && beside.every((m) => Number(m[1]) + m[2]!.length * 6.2 <= width),
    `${beside.length} lines beside the bars, each inside ${width} px`,
  );
  const unescaped = captionLines
    .join(' ')
    .replace(/&(amp|lt|gt|quot);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[name]!);
  t.equal(unescaped, interleavings.map((i) => captions[i]).join(' '), 'every caption whole, in order');
  // The table explains itself wherever it appears: the terminal and race.md.
  for (const interleaving of interleavings) t.match(legend(summaries), `- ${interleaving}: ${captions[interleaving]}.`);
  t.match(
    report,
    /How to read it:[\s\S]*409 is a refusal[\s\S]*What each interleaving sends, and how its orders went/,
    'race.md has the legend',
  );
  // The chart can show a mixed outcome: with each side's own delay, either arrives first.
  const jittered = summaries.find((s) => s.interleaving === 'both-jittered')!;
  t.ok(
    jittered.firstApplied.merchant > 0 && jittered.firstApplied.pos > 0,
    `both-jittered mixes: merchant first ${jittered.firstApplied.merchant}, POS first ${jittered.firstApplied.pos}`,
  );
  t.ok(
    (jittered.finals.PAID ?? 0) > 0 && (jittered.finals.VOIDED ?? 0) > 0,
    `and so do its final states: ${JSON.stringify(jittered.finals)}`,
  );
  // Every row's words agree with its counts: the ways its orders went add up to its final states, and to
  // which side the server took first. (The retry row once said "PAID when the discard came first" over
  // 18 VOIDED orders the merchant took first.)
  for (const summary of summaries) {
    const byFinal: Record<string, number> = {};
    let merchantFirst = 0;
    for (const [words, n] of Object.entries(summary.paths)) {
      byFinal[finalOfPath(words)] = (byFinal[finalOfPath(words)] ?? 0) + n;
      if (words.startsWith('discarded first')) merchantFirst += n;
    }
    t.same(byFinal, summary.finals, `${summary.interleaving}: the ways its orders went end as its final states`);
    t.equal(merchantFirst, summary.firstApplied.merchant, `${summary.interleaving}: and start as taken first says`);
    for (const line of pathLines(summary))
      t.ok(report.includes(line), `${summary.interleaving}: race.md says how: ${line}`);
    t.notMatch(
      summary.caption,
      /\b(PAID|VOIDED|DISCARDED|VOID_PENDING)\b/,
      'a caption says what is sent, not what came of it',
    );
  }
  const retry = summaries.find((s) => s.interleaving === 'lost-answer-retry')!;
  t.comment(`lost-answer-retry: ${pathLines(retry).join('; ')}`);
  t.ok(report.includes(WHAT_IT_SHOWS), 'race.md says in one line what the demo shows');
  t.match(picture, /PAID \d+\.\d{2} USD · VOIDED \d+\.\d{2} USD/, 'the amounts');
  t.match(picture, /orders \(final state/, 'an axis, named');
  t.match(picture, /Merchant discards, then the POS commits/, 'what discard-first sends');
  t.match(picture, /fill="#222">\d+ orders?: discarded first, then paid all the same/, 'how its orders went');
  const shownStates = [...picture.matchAll(/<text x="\d+" y="40" font-size="11">([A-Z_]+)<\/text>/g)]
    .map((m) => m[1])
    .sort();
  const occurring = [...new Set(summaries.flatMap((s) => Object.keys(s.finals)))].sort();
  t.same(shownStates, occurring, 'the legend lists only the states that occur');
});

t.test('the checker catches money collected but lost, a lost order and an illegal history', async (t) => {
  const base = {
    amount: 100,
    interleaving: 'simultaneous' as const,
    merchant: { statuses: [200] },
    pos: { statuses: [200] },
  };
  const failures = checkInvariants([
    {
      ...base,
      orderId: 'a',
      collected: true,
      final: { status: 'DISCARDED', history: [{ from: 'PENDING', to: 'DISCARDED' }] },
    },
    { ...base, orderId: 'b', collected: false, final: null },
    {
      ...base,
      orderId: 'c',
      collected: true,
      final: {
        status: 'VOIDED',
        history: [
          { from: 'PENDING', to: 'PAID' },
          { from: 'PAID', to: 'VOIDED' },
        ],
      },
    },
    {
      ...base,
      orderId: 'd',
      collected: false,
      final: { status: 'PAID', history: [{ from: 'PENDING', to: 'PAID' }] },
      pos: { statuses: [500] },
    },
  ]);
  t.match(
    failures.join('\n'),
    /a: money collected but the order is DISCARDED[\s\S]*b: lost[\s\S]*c: an illegal transition[\s\S]*c: voided without going through VOID_PENDING[\s\S]*d: an answer was 500[\s\S]*d: recorded as PAID/,
  );
});

t.test('the same seed gives the same amounts and delays', async (t) => {
  const a = seeded(7);
  const b = seeded(7);
  t.same(Array.from({ length: 5 }, a), Array.from({ length: 5 }, b));
  t.not(seeded(8)(), seeded(7)());
});

t.test(
  'the race through the bridge and an emulated device over a pseudo-terminal keeps the invariants',
  { skip: socatSkip() },
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const merchant = await merchantWithTerminal(server);
    const target: RaceTarget = {
      baseUrl: server.baseUrl,
      merchantId: merchant.account.merchant_id,
      merchantToken: merchant.account.key.token,
      terminal: merchant.serialNumber,
      pos: merchant.pos,
    };
    const runs = await runSerialRace(target, 8, seeded(5), 'serial');
    await completeVoids(target, runs);
    for (const run of runs) run.collected = run.final?.history.some((step) => step.to === 'PAID') ?? false;
    t.same(checkInvariants(runs), []);
    t.ok(
      runs.every((run) => ['PAID', 'VOIDED', 'DISCARDED'].includes(run.final!.status)),
      'every order settled one way or the other',
    );
  },
);
