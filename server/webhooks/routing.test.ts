import t from 'tap';
import { networkInterfaces } from 'node:os';
import { isLocalHost, isPrivateAddress, routeWebhook } from './routing.js';
import { carriedIPv4, OwnAddresses, SPECIAL_IPV4, SPECIAL_IPV6, specialRangeOf } from './special-addresses.js';

const own = 'http://sim.example.com:3000';

t.test("the account's own default receivers on the simulator's origin are loopback", async (t) => {
  for (const kind of ['paid', 'accredited', 'fail', 'captura'] as const) {
    t.same(routeWebhook(`${own}/console/hooks/acc_1/${kind}`, own, 'acc_1'), { kind: 'loopback', receiver: kind });
  }
  t.equal(
    routeWebhook(`${own}/console/hooks/acc_2/paid`, own, 'acc_1').kind,
    'direct',
    "another account's receiver is not loopback",
  );
  t.equal(routeWebhook(`${own}/console/hooks/acc_1/other`, own, 'acc_1').kind, 'direct');
});

t.test('every spelling of a local or private address routes through the relay', async (t) => {
  const relayed = [
    'http://localhost/h',
    'http://LOCALHOST:8080/h',
    'http://localhost./h',
    'http://app.localhost/h',
    'http://127.0.0.1/h',
    'http://127.1/h',
    'http://127.0.0.2:9/h',
    'http://0x7f.0.0.1/h',
    'http://2130706433/h',
    'http://017700000001/h',
    'http://0.0.0.0/h',
    'http://0/h',
    'http://10.0.0.5/h',
    'http://10.255.255.255/h',
    'http://192.168.1.1/h',
    'http://172.16.0.1/h',
    'http://172.31.255.255/h',
    'http://169.254.169.254/latest',
    'http://[::1]/h',
    'http://[0:0:0:0:0:0:0:1]/h',
    'http://[::]/h',
    'http://[::ffff:127.0.0.1]/h',
    'http://[::ffff:7f00:1]/h',
    'http://[::ffff:10.1.2.3]/h',
    'http://[::ffff:192.168.0.1]/h',
    'http://[::127.0.0.1]/h',
    'http://[64:ff9b::a00:1]/h',
    'http://[fd00::1]/h',
    'http://[fe80::1]/h',
    'not a url',
    '::::',
    'ftp://example.com/h',
    '',
  ];
  for (const url of relayed) t.equal(routeWebhook(url, own, 'acc_1').kind, 'relay', url);
});

t.test('public hosts are direct, including the edges of the private ranges', async (t) => {
  const direct = [
    'https://example.com/hook',
    'http://172.15.0.1/h',
    'http://172.32.0.1/h',
    'http://11.0.0.1/h',
    'http://192.169.0.1/h',
    'http://[2606:4700::1111]/h',
    'http://[::ffff:8.8.8.8]/h',
    'http://8.8.8.8/h',
    'http://100.63.255.255/h',
    'http://100.128.0.0/h',
    'http://198.17.255.255/h',
    'http://198.20.0.0/h',
    'http://223.255.255.255/h',
    'http://[2002:808:808::1]/h',
    'http://[64:ff9b::808:808]/h',
    'http://[::ffff:0:8.8.8.8]/h',
  ];
  for (const url of direct) t.equal(routeWebhook(url, own, 'acc_1').kind, 'direct', url);
  t.equal(isLocalHost('93.184.216.34'), false);
  t.equal(isLocalHost('127.0.0.1'), true);
});

t.test(
  'every range of the special-purpose table routes through the relay, written as a URL or as a resolved address',
  async (t) => {
    for (const range of [...SPECIAL_IPV4, ...SPECIAL_IPV6]) {
      t.test(`${range.cidr} ${range.name} (${range.source})`, async (t) => {
        const host = range.sample.includes(':') ? `[${range.sample}]` : range.sample;
        t.equal(
          specialRangeOf(range.sample)?.cidr,
          range.embedsIPv4At === undefined ? range.cidr : '127.0.0.0/8',
          'the sample lies in its range',
        );
        t.equal(routeWebhook(`http://${host}/hook`, own, 'acc_1').kind, 'relay', `http://${host}/hook`);
        t.equal(isPrivateAddress(range.sample), true, 'as a resolved address');
        if (!range.cidr.includes(':')) {
          const [first, bits] = range.cidr.split('/') as [string, string];
          const start = first.split('.').reduce((n, part) => n * 256 + Number(part), 0);
          const last = start + 2 ** (32 - Number(bits)) - 1;
          const text = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
          t.equal(isPrivateAddress(text(start)), true, `first address ${text(start)}`);
          t.equal(isPrivateAddress(text(last)), true, `last address ${text(last)}`);
          // The IPv4 forms IPv6 can carry: mapped, translated, NAT64 and 6to4.
          const hex = [Math.floor(last / 65536), last % 65536].map((w) => w.toString(16));
          for (const carried of [
            `::ffff:${text(last)}`,
            `::ffff:0:${text(last)}`,
            `64:ff9b::${hex.join(':')}`,
            `2002:${hex.join(':')}::1`,
          ]) {
            t.equal(routeWebhook(`http://[${carried}]/h`, own, 'acc_1').kind, 'relay', `carried as ${carried}`);
          }
        }
      });
    }
  },
);

t.test("IPv6 forms carrying a public IPv4 address are direct; the issue's examples are relayed", async (t) => {
  t.equal(carriedIPv4('2002:7f00:1::'), '127.0.0.1');
  t.equal(carriedIPv4('64:ff9b::808:808'), '8.8.8.8');
  t.equal(carriedIPv4('2606:4700::1111'), null);
  for (const url of [
    'http://100.100.100.200/latest/meta-data',
    'http://198.18.0.1/h',
    'http://192.0.0.1/h',
    'http://224.0.0.1/h',
    'http://255.255.255.255/h',
    'http://[2002:7f00:1::1]/h',
    'http://[64:ff9b:1::7f00:1]/h',
    'http://[::ffff:0:127.0.0.1]/h',
    'http://[ff02::1]/h',
  ]) {
    t.equal(routeWebhook(url, own, 'acc_1').kind, 'relay', url);
  }
});

t.test("the host's own interface addresses route through the relay, public ones included", async (t) => {
  const own_ = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((entry) => entry.address);
  t.ok(own_.length > 0, `${own_.length} addresses on this host`);
  for (const address of own_) t.equal(isPrivateAddress(address), true, address);
});

// The own-address rule on its own, independent of the test host (whose addresses are all special anyway,
// so the host test above cannot tell a working own-address check from one that always answers "not ours").
t.test(
  'a public address of this host is private to direct delivery, in every spelling, carried in IPv6 too',
  async (t) => {
    const own = new OwnAddresses(() => ({
      eth0: [{ address: '8.8.4.4' }, { address: '2606:4700:4700::1111' }],
      lo: [{ address: '127.0.0.1' }],
    }));
    t.equal(isPrivateAddress('8.8.4.4', own), true, "the host's own public IPv4");
    t.equal(isPrivateAddress('8.8.8.8', own), false, 'another public address is not');
    t.equal(isPrivateAddress('2606:4700:4700::1111', own), true, "the host's own public IPv6");
    t.equal(isPrivateAddress('[2606:4700:4700::1111]', own), true, 'bracketed');
    t.equal(isPrivateAddress('2606:4700:4700::1111%eth0', own), true, 'with a zone id');
    t.equal(isPrivateAddress('2606:4700:4700::1112', own), false, 'its neighbour is not');
    t.equal(isPrivateAddress('::ffff:8.8.4.4', own), true, 'carried in an IPv4-mapped IPv6 address');
    t.equal(isPrivateAddress('64:ff9b::808:404', own), true, 'carried in NAT64');
  },
);

t.test("the host's addresses are read again after 10 s, not before", async (t) => {
  let addresses = [{ address: '8.8.4.4' }];
  let reads = 0;
  const own = new OwnAddresses(() => {
    reads += 1;
    return { eth0: addresses };
  });
  t.equal(own.has('8.8.4.4', 0), true);
  addresses = [{ address: '1.1.1.1' }];
  t.equal(own.has('1.1.1.1', 10_000), false, 'within 10 s: the list read before');
  t.equal(own.has('1.1.1.1', 10_001), true, 'after 10 s: read again');
  t.equal(own.has('8.8.4.4', 10_002), false, 'an address the host no longer has is no longer its own');
  t.equal(reads, 2);
});

t.test('full eight-group IPv6 addresses are judged like their short forms', async (t) => {
  const cases: Array<[string, boolean]> = [
    ['2001:0db8:0000:0000:0000:0000:0000:0001', true], // documentation
    ['fe80:0000:0000:0000:0202:b3ff:fe1e:8329', true], // link local
    ['fd00:0000:0000:0000:0000:0000:0000:0001', true], // unique local
    ['0000:0000:0000:0000:0000:0000:0000:0001', true], // loopback
    ['0000:0000:0000:0000:0000:ffff:7f00:0001', true], // IPv4-mapped 127.0.0.1
    ['2606:4700:4700:0000:0000:0000:0000:1111', false], // public
    ['2a00:1450:4001:0829:0000:0000:0000:200e', false], // public
  ];
  for (const [address, special] of cases) {
    t.equal(isPrivateAddress(address, new OwnAddresses(() => ({}))), special, address);
    t.equal(
      routeWebhook(`http://[${address}]/hook`, own, 'acc_1').kind,
      special ? 'relay' : 'direct',
      `as a URL: ${address}`,
    );
  }
});

t.test(
  'the special-purpose table documents each range: a name, the RFC that defines it, a sample inside it; no range listed twice',
  async (t) => {
    const ranges = [...SPECIAL_IPV4, ...SPECIAL_IPV6];
    for (const range of ranges) {
      t.match(range.name, /^[a-zA-Z0-9].{2,}/, `${range.cidr} is named`);
      t.match(range.source, /^RFC \d{3,4}$/, `${range.cidr} names its RFC`);
      t.not(specialRangeOf(range.sample), null, `${range.cidr}: its sample ${range.sample} is special`);
    }
    t.equal(new Set(ranges.map((range) => range.cidr)).size, ranges.length);
    t.same(
      specialRangeOf('not an address'),
      { cidr: '-', name: 'unreadable address', source: '-', sample: '-' },
      'unreadable text is special, and named so',
    );
  },
);

t.test(
  "the host's own address in any spelling is its own: full groups, case, brackets, a zone id; a list an interface lacks is skipped",
  async (t) => {
    const own = new OwnAddresses(() => ({
      eth0: [{ address: '2606:4700:4700:0:0:0:0:1111' }, { address: '8.8.4.4' }],
      down: undefined,
      lo: [{ address: 'FE80::1%lo' }],
    }));
    for (const spelling of [
      '2606:4700:4700::1111',
      '2606:4700:4700:0000:0000:0000:0000:1111',
      '2606:4700:4700::1111'.toUpperCase(),
      '[2606:4700:4700::1111]',
      '2606:4700:4700::1111%eth0',
    ]) {
      t.equal(own.has(spelling), true, spelling);
    }
    t.equal(own.has('fe80::1'), true, 'listed with a zone id and in capitals');
    t.equal(own.has('8.8.4.4'), true);
    t.equal(own.has('8.8.4.5'), false);
    t.equal(
      own.has('::ffff:8.8.4.4'),
      false,
      'a mapped form is another address to the set (isPrivateAddress checks what it carries)',
    );
  },
);

t.test(
  'a bracketed public address is judged by what is inside; text with one bracket is unreadable, so never reached',
  async (t) => {
    const none = new OwnAddresses(() => ({}));
    t.equal(isPrivateAddress('[2606:4700:4700::1112]', none), false);
    t.equal(isPrivateAddress('[2606:4700:4700::1112', none), true);
    t.equal(isPrivateAddress('2606:4700:4700::1112]', none), true);
    t.equal(isPrivateAddress('8.8.8.8%eth0', none), false, 'a zone id is not part of the address');
  },
);

t.test('only the IPv6 forms that carry an IPv4 address give one back', async (t) => {
  t.equal(carriedIPv4('fd00::1'), null, 'unique local carries none');
  t.equal(carriedIPv4('::1'), null);
  t.equal(carriedIPv4('8.8.8.8'), null, 'an IPv4 address carries none');
  t.equal(carriedIPv4('not an address'), null);
  t.equal(carriedIPv4('[::ffff:192.168.100.200]'), '192.168.100.200');
  t.equal(carriedIPv4('::ffff:0:10.200.30.4'), '10.200.30.4');
  t.equal(carriedIPv4('2002:c0a8:64c8::'), '192.168.100.200');
});

t.test('IPv6 spellings with :: at either end and dotted tails of several digits are read right', async (t) => {
  t.equal(specialRangeOf('::ffff:192.168.100.200')?.cidr, '192.168.0.0/16');
  t.equal(specialRangeOf('::ffff:100.100.100.200')?.cidr, '100.64.0.0/10');
  t.equal(specialRangeOf('64:ff9b::198.51.100.7')?.cidr, '198.51.100.0/24');
  t.equal(specialRangeOf('2606:4700::'), null);
  t.equal(
    specialRangeOf('fe80::'),
    SPECIAL_IPV6.find((range) => range.cidr === 'fe80::/10'),
  );
  t.equal(
    specialRangeOf('::2'),
    SPECIAL_IPV6.find((range) => range.cidr === '::/96'),
  );
  t.equal(
    specialRangeOf('::'),
    SPECIAL_IPV6.find((range) => range.cidr === '::/128'),
    'named by its own, narrowest range',
  );
  t.equal(specialRangeOf('2001:db8:0:0:0:0:0:ffff')?.cidr, '2001:db8::/32');
  t.equal(specialRangeOf('2001:4860:4860::8888'), null, 'a public address beside the documentation range');
  t.equal(specialRangeOf('223.255.255.255'), null);
  t.equal(specialRangeOf('1.2.3.4'), null);
  t.equal(specialRangeOf('201.10.20.30'), null, 'three-digit octets');
});

t.test(
  "only the account's own receivers on the simulator's own origin are loopback: the same path elsewhere is someone else's server",
  async (t) => {
    for (const url of [
      'https://receiver.example.com/console/hooks/acc_1/paid',
      'http://sim.example.com:3001/console/hooks/acc_1/paid',
      'https://sim.example.com:3000/console/hooks/acc_1/paid',
      `${own}/x/console/hooks/acc_1/paid`,
      `${own}/console/hooks/acc_1/paid/more`,
    ]) {
      t.equal(routeWebhook(url, own, 'acc_1').kind, 'direct', url);
    }
    t.same(
      routeWebhook(`${own}/console/hooks/acc_1/paid/`, own, 'acc_1'),
      { kind: 'loopback', receiver: 'paid' },
      'a trailing slash is the same receiver',
    );
    t.equal(
      routeWebhook(`${own}/console/hooks/acc_1/paid`, 'not a url', 'acc_1').kind,
      'direct',
      'with no public URL of its own, nothing is loopback',
    );
  },
);

t.test("text that is no address is never the host's own, and asking does not fail", async (t) => {
  const own = new OwnAddresses(() => ({ eth0: [{ address: '8.8.4.4' }, { address: 'not-an-address' }] }));
  t.equal(own.has('xyz'), false);
  t.equal(own.has('not-an-address'), true, 'listed as written, found as written');
  t.equal(own.has('8.8.4.4'), true);
  t.equal(own.has('808:404::'), false, 'an IPv6 address is not the IPv4 one its words resemble');
});
