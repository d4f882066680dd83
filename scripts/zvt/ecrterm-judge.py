"""
Plays ecrterm (the Python ECR library of wirelane/ecrterm, which this
project did not write) as the cash register against a ZVT terminal:
registration, status enquiry, payments approved and declined, end of day,
log off. By hand, not part of npm test: ecrterm is on no registry.

  git clone <wirelane/ecrterm> /tmp/ecrterm; apt-get install python3-serial python3-six
  svc-terminal emulate --dialect zvt --listen 127.0.0.1:20007 --serial 29001006 --card-delay-ms 300 &
  PYTHONPATH=/tmp/ecrterm python3 scripts/zvt/ecrterm-judge.py socket://127.0.0.1:20007
  # over a serial line: a socat pty pair, the emulator on one end (--path), this on the other
  PYTHONPATH=/tmp/ecrterm python3 scripts/zvt/ecrterm-judge.py /tmp/zvt-ecr

Prints PASS/FAIL per step and "N passed, N failed"; exit 0 when all pass.
"""
import logging
import sys

from ecrterm.ecr import ECR
from ecrterm.packets.base_packets import LogOff, Registration
from ecrterm.packets.types import ConfigByte, CurrencyCode

device = sys.argv[1]  # socket://127.0.0.1:20007 or /dev/pts/N
if '--debug' in sys.argv:
    logging.basicConfig(level=logging.DEBUG)

results = []


# A quirk of ecrterm, kept in the harness: ECR.last_printout reads PrintLine.fixed_values, which its
# packets no longer have (AttributeError); end_of_day() calls it. The print lines as its packets hold them:
def last_printout(self):
    return [p.text for inc, p in self.transmitter.last_history if inc and p.__class__.__name__ == 'PrintLine']


ECR.last_printout = last_printout

# The second quirk: its serial transport sets RTS and DTR, which a pseudo-terminal refuses (an ioctl error).
# A pty has no modem lines to set: in the harness they do nothing.
if device.startswith('/'):
    from ecrterm.transmission.transport_serial import SerialTransport
    SerialTransport.SerialCls.setRTS = lambda self, value=True: None
    SerialTransport.SerialCls.setDTR = lambda self, value=True: None


def step(name, ok, detail=''):
    results.append((name, ok))
    print(('PASS ' if ok else 'FAIL ') + name + (': ' + str(detail) if detail else ''), flush=True)


ecr = ECR(device=device, password='000000')
ecr.end_of_day()  # the turnover starts empty: what the checks below count is this run's
ret = ecr.register(config_byte=ConfigByte.DEFAULT, cc=CurrencyCode.EUR)
step('registration', ret == 0 and ecr.terminal_id is not None, 'terminal id %s' % ecr.terminal_id)

status = ecr.status()
step('status enquiry', status is not False and ecr.version is not None,
     'version %r, terminal status %r' % (ecr.version, ecr._status))

printed = []
ok = ecr.payment(amount_cent=2500)
lines = ecr.last_printout()
step('payment approved (25.00 EUR)', ok is True, '%d receipt lines' % len(lines))
info = [p for inc, p in ecr.transmitter.last_history if inc and p.__class__.__name__ == 'StatusInformation']
if info:
    d = info[-1].as_dict()
    step('status information of the payment', d.get('result_code') == 0 and d.get('amount') == 2500,
         {k: d.get(k) for k in ('result_code', 'amount', 'trace_number', 'receipt', 'tid', 'pan', 'card_type', 'aid')})

ok = ecr.payment(amount_cent=5)
info = [p for inc, p in ecr.transmitter.last_history if inc and p.__class__.__name__ == 'StatusInformation']
aborts = [p for inc, p in ecr.transmitter.last_history if inc and p.__class__.__name__ == 'Abort']
step('payment declined (0.05 EUR, result code 05)', ok is False and info and info[-1].as_dict().get('result_code') == 5
     and aborts and aborts[-1].result_code == 5,
     'status %r, abort %r' % (info and info[-1].as_dict().get('result_code'), aborts and aborts[-1].result_code))

ok = ecr.payment(amount_cent=16)
aborts = [p for inc, p in ecr.transmitter.last_history if inc and p.__class__.__name__ == 'Abort']
step('payment declined (0.16 EUR, result code 0x10, stuffed on serial)', ok is False and aborts and aborts[-1].result_code == 0x10)

ret = ecr.end_of_day()
info = [p for inc, p in ecr.transmitter.last_history if inc and p.__class__.__name__ == 'StatusInformation']
eod = info and info[-1].as_dict()
step('end of day', ret == 0 and eod and eod.get('amount') == 2500, eod and {k: eod.get(k) for k in ('result_code', 'amount', 'totals')})

ret = ecr.transmit(LogOff())
step('log off', ret == 0)

passed = sum(1 for _, ok in results if ok)
print('%d passed, %d failed' % (passed, len(results) - passed))
sys.exit(0 if passed == len(results) else 1)
