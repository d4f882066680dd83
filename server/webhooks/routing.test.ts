import t from 'tap';
import { isLocalHost, routeWebhook } from './routing.js';

const own = 'http://sim.example.com:3000';

t.test('the account\'s own default receivers on the simulator\'s origin are loopback', async (t) => {
  for (const kind of ['paid', 'accredited', 'fail', 'captura'] as const) {
    t.same(routeWebhook(`${own}/console/hooks/acc_1/${kind}`, own, 'acc_1'), { kind: 'loopback', receiver: kind });
  }
  t.equal(routeWebhook(`${own}/console/hooks/acc_2/paid`, own, 'acc_1').kind, 'direct', 'another account\'s receiver is not loopback');
  t.equal(routeWebhook(`${own}/console/hooks/acc_1/other`, own, 'acc_1').kind, 'direct');
});

t.test('every spelling of a local or private address routes through the relay', async (t) => {
  const relayed = [
    'http://localhost/h', 'http://LOCALHOST:8080/h', 'http://localhost./h', 'http://app.localhost/h',
    'http://127.0.0.1/h', 'http://127.1/h', 'http://127.0.0.2:9/h', 'http://0x7f.0.0.1/h', 'http://2130706433/h', 'http://017700000001/h',
    'http://0.0.0.0/h', 'http://0/h',
    'http://10.0.0.5/h', 'http://10.255.255.255/h', 'http://192.168.1.1/h', 'http://172.16.0.1/h', 'http://172.31.255.255/h', 'http://169.254.169.254/latest',
    'http://[::1]/h', 'http://[0:0:0:0:0:0:0:1]/h', 'http://[::]/h', 'http://[::ffff:127.0.0.1]/h', 'http://[::ffff:7f00:1]/h', 'http://[::ffff:10.1.2.3]/h',
    'http://[::ffff:192.168.0.1]/h', 'http://[::127.0.0.1]/h', 'http://[64:ff9b::a00:1]/h', 'http://[fd00::1]/h', 'http://[fe80::1]/h',
    'not a url', '::::', 'ftp://example.com/h', '',
  ];
  for (const url of relayed) t.equal(routeWebhook(url, own, 'acc_1').kind, 'relay', url);
});

t.test('public hosts are direct, including the edges of the private ranges', async (t) => {
  const direct = ['https://example.com/hook', 'http://172.15.0.1/h', 'http://172.32.0.1/h', 'http://11.0.0.1/h', 'http://192.169.0.1/h', 'http://[2001:db8::1]/h', 'http://[::ffff:8.8.8.8]/h', 'http://8.8.8.8/h'];
  for (const url of direct) t.equal(routeWebhook(url, own, 'acc_1').kind, 'direct', url);
  t.equal(isLocalHost('93.184.216.34'), false);
  t.equal(isLocalHost('127.0.0.1'), true);
});
