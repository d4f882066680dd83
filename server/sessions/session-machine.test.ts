import t from 'tap';
import type { SessionRecord, SessionStatus } from './session.js';
import { admissibleOutcomes, transition, type SessionOutcome } from './session-machine.js';

const session = (status: SessionStatus = 'pending', extra: Partial<SessionRecord> = {}): SessionRecord => ({
  session_id: 'ses_1',
  account_id: 'acc_1',
  status,
  agreement_id: 'agr_1',
  amount_cents: 10_000,
  currency_reference: 'USD',
  due_date_session: null,
  due_date_reached_behavior: 'expire',
  webhook_url: null,
  description: null,
  created_at: '2026-11-21T10:00:00.000Z',
  origin: 'button',
  payment_id: 'pay_1',
  distribution: [{ partner_id: 'ptn_1', amount_cents: 4_000 }],
  accreditation: { status: 'none' },
  event_seq: 1,
  ...extra,
});
const changed = (outcome: SessionOutcome) => {
  if (outcome.result !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(outcome)}`);
  return outcome;
};

t.test('rule 1: two phases: leg 1 pays, leg 2 accredits', async (t) => {
  const paid = changed(transition(session(), { kind: 'force', leg: 1, outcome: 'paid' }));
  t.equal(paid.session.status, 'paid');
  t.equal(paid.session.accreditation.status, 'none', 'payment alone does not accredit');
  const accredited = changed(transition(paid.session, { kind: 'force', leg: 2, outcome: 'accredited' }));
  t.equal(accredited.session.accreditation.status, 'accredited');
  t.equal(accredited.session.credits!.length, 2, 'one credit per partner plus the owner');
});

t.test('rule 2: leg 1 on a paid session and leg 2 on an unpaid one are rejected with the reason', async (t) => {
  for (const outcome of ['paid', 'failed', 'expired']) {
    t.match(transition(session('paid'), { kind: 'force', leg: 1, outcome }), {
      result: 'rejected',
      code: 'INVALID_FORCED_TRANSITION',
      reason: /already paid/,
    });
  }
  for (const status of ['pending', 'failed', 'expired'] as const) {
    t.match(transition(session(status), { kind: 'force', leg: 2, outcome: 'accredited' }), {
      result: 'rejected',
      code: 'INVALID_FORCED_TRANSITION',
      reason: /requires the session to be paid/,
    });
  }
  t.match(
    transition(session('paid', { accreditation: { status: 'accredited' } }), {
      kind: 'force',
      leg: 2,
      outcome: 'accreditation_failed',
    }),
    { result: 'rejected', reason: /already ended/ },
  );
  t.match(transition(session(), { kind: 'force', leg: 1, outcome: 'accredited' }), {
    result: 'rejected',
    reason: /not a leg 1 outcome/,
  });
  t.match(transition(session('paid'), { kind: 'force', leg: 2, outcome: 'paid' }), {
    result: 'rejected',
    reason: /not a leg 2 outcome/,
  });
});

t.test('rule 3: paying through the page schedules leg 2', async (t) => {
  const paid = changed(
    transition(session(), {
      kind: 'page',
      outcome: 'paid',
      leg2: 'accreditation_failed',
      accreditAt: '2026-11-21T10:00:05.000Z',
    }),
  );
  t.same(paid.session.accreditation, {
    status: 'scheduled',
    scheduled_for: '2026-11-21T10:00:05.000Z',
    outcome: 'accreditation_failed',
  });
  t.equal(paid.schedule, 'set');
  t.same(paid.events, [{ event: 'payment_session.paid' }]);
  const fired = changed(transition(paid.session, { kind: 'scheduled-accreditation' }));
  t.equal(fired.session.accreditation.status, 'failed', 'leg 2 ends as chosen on the page');
  t.same(
    fired.events.map((e) => e.event),
    ['payment_session.accreditation_to_recipient_failed', 'payment_session.accreditation_to_recipient_failed'],
  );
});

t.test('rule 4: forcing paid does not schedule the accreditation', async (t) => {
  const paid = changed(transition(session(), { kind: 'force', leg: 1, outcome: 'paid' }));
  t.same(paid.session.accreditation, { status: 'none' });
  t.equal(paid.schedule, undefined);
  t.equal(transition(paid.session, { kind: 'scheduled-accreditation' }).result, 'unchanged');
});

t.test('rule 5: forcing leg 2 cancels a scheduled accreditation, and the schedule then does nothing', async (t) => {
  const scheduled = session('paid', {
    accreditation: { status: 'scheduled', scheduled_for: '2026-11-21T10:00:05.000Z', outcome: 'accredited' },
  });
  const forced = changed(transition(scheduled, { kind: 'force', leg: 2, outcome: 'accreditation_failed' }));
  t.equal(forced.schedule, 'cancel');
  t.equal(forced.session.accreditation.status, 'failed');
  t.equal(
    transition(forced.session, { kind: 'scheduled-accreditation' }).result,
    'unchanged',
    'no second, contradictory notice',
  );
});

t.test(
  'rule 6: expiring a paid session is rejected (422); pending and failed expire; expired is unchanged',
  async (t) => {
    t.match(transition(session('paid'), { kind: 'expire' }), { result: 'rejected', code: 'SESSION_ALREADY_PAID' });
    t.equal(changed(transition(session('pending'), { kind: 'expire' })).session.status, 'expired');
    t.equal(changed(transition(session('failed'), { kind: 'expire' })).session.status, 'expired');
    t.equal(transition(session('expired'), { kind: 'expire' }).result, 'unchanged');
    t.same(changed(transition(session('pending'), { kind: 'expire' })).events, [], 'expiring emits no event');
  },
);

t.test('rule 7: past the due date an expire-mode session is expired, a keep_active one stays pending', async (t) => {
  const due = '2026-11-21T12:00:00.000Z';
  const now = Date.parse(due);
  t.equal(
    transition(session('pending', { due_date_session: due }), { kind: 'due-date', now: now - 1 }).result,
    'unchanged',
    'before the due date',
  );
  t.equal(
    changed(transition(session('pending', { due_date_session: due }), { kind: 'due-date', now })).session.status,
    'expired',
  );
  t.equal(
    transition(session('pending', { due_date_session: due, due_date_reached_behavior: 'keep_active' }), {
      kind: 'due-date',
      now,
    }).result,
    'unchanged',
  );
  t.equal(
    transition(session('paid', { due_date_session: due }), { kind: 'due-date', now }).result,
    'unchanged',
    'a paid session stays paid',
  );
  t.equal(transition(session('pending'), { kind: 'due-date', now }).result, 'unchanged', 'no due date, no expiry');
});

t.test('rule 8: paid, failed and expired can be forced and show in the status', async (t) => {
  for (const outcome of ['paid', 'failed', 'expired'] as const) {
    for (const from of ['pending', 'failed', 'expired'] as const) {
      t.equal(
        changed(transition(session(from), { kind: 'force', leg: 1, outcome })).session.status,
        outcome,
        `${from} → ${outcome}`,
      );
    }
  }
  t.same(
    changed(transition(session(), { kind: 'force', leg: 1, outcome: 'failed' })).events,
    [],
    'failed emits no event',
  );
});

t.test('events: paid on leg 1 paid, accredited on leg 2, one failed-credit event per receiver', async (t) => {
  const paid = changed(transition(session(), { kind: 'force', leg: 1, outcome: 'paid' }));
  t.same(paid.events, [{ event: 'payment_session.paid' }]);
  t.same(changed(transition(paid.session, { kind: 'force', leg: 2, outcome: 'accredited' })).events, [
    { event: 'payment_session.accredited' },
  ]);
  t.same(changed(transition(paid.session, { kind: 'force', leg: 2, outcome: 'accreditation_failed' })).events, [
    { event: 'payment_session.accreditation_to_recipient_failed', receiver_id: 'ptn_1' },
    { event: 'payment_session.accreditation_to_recipient_failed', receiver_id: 'acc_1' },
  ]);
});

// What a user or an integrator would see, for the survivors mutation testing found (issue 31).

t.test(
  'the payment page pays only a pending session: a second payment of a paid one is refused, so a double payment cannot happen',
  async (t) => {
    const page = { kind: 'page', outcome: 'paid', leg2: 'accredited', accreditAt: '2026-11-21T10:05:00.000Z' } as const;
    const first = changed(transition(session(), page));
    t.equal(first.session.status, 'paid');
    for (const status of ['paid', 'failed', 'expired'] as const) {
      t.match(
        transition(session(status), page),
        { result: 'rejected', code: 'SESSION_NOT_PAYABLE' },
        `a ${status} session is not paid again`,
      );
      t.match(transition(session(status), { kind: 'page', outcome: 'failed', reason: 'insufficient_funds' }), {
        result: 'rejected',
        code: 'SESSION_NOT_PAYABLE',
      });
    }
  },
);

t.test(
  'a failed accreditation marks every credit failed, and emits one failed-credit event per receiver',
  async (t) => {
    const failed = changed(transition(session('paid'), { kind: 'force', leg: 2, outcome: 'accreditation_failed' }));
    t.equal(failed.session.accreditation.status, 'failed');
    t.same(
      failed.session.credits!.map((credit) => credit.status),
      ['failed', 'failed'],
      'no credit reads credited',
    );
    t.same(
      failed.events.map((event) => [event.event, (event as { receiver_id?: string }).receiver_id]),
      [
        ['payment_session.accreditation_to_recipient_failed', 'ptn_1'],
        ['payment_session.accreditation_to_recipient_failed', 'acc_1'],
      ],
    );
    const accredited = changed(transition(session('paid'), { kind: 'force', leg: 2, outcome: 'accredited' }));
    t.same(
      accredited.session.credits!.map((credit) => credit.status),
      ['credited', 'credited'],
    );
  },
);

t.test(
  'a forced leg 1 failure reads failure_reason "forced"; forcing it paid afterwards drops the reason; paying never adds one',
  async (t) => {
    const failed = changed(transition(session(), { kind: 'force', leg: 1, outcome: 'failed' }));
    t.equal(failed.session.failure_reason, 'forced');
    const expired = changed(transition(session(), { kind: 'force', leg: 1, outcome: 'expired' }));
    t.notOk('failure_reason' in expired.session, 'an expiry carries no failure reason');
    const paidAgain = changed(transition({ ...failed.session }, { kind: 'force', leg: 1, outcome: 'paid' }));
    t.notOk('failure_reason' in paidAgain.session, 'a paid session carries no failure reason');
    const pagedFailure = changed(
      transition(session(), { kind: 'page', outcome: 'failed', reason: 'insufficient_funds' }),
    );
    t.equal(pagedFailure.session.failure_reason, 'insufficient_funds', 'the page\'s own reason, not "forced"');
  },
);

t.test('expiry by due date changes the status and emits no event (failed and expired emit none)', async (t) => {
  const due = session('pending', { due_date_session: '2026-11-21T10:01:00.000Z' });
  t.match(
    transition(due, { kind: 'due-date', now: Date.parse('2026-11-21T10:00:59.999Z') }),
    { result: 'unchanged' },
    'not before its due date',
  );
  const expired = changed(transition(due, { kind: 'due-date', now: Date.parse('2026-11-21T10:01:00.000Z') }));
  t.equal(expired.session.status, 'expired', 'at its due date');
  t.same(expired.events, []);
  t.match(
    transition(
      session('pending', { due_date_session: '2026-11-21T10:01:00.000Z', due_date_reached_behavior: 'keep_active' }),
      { kind: 'due-date', now: Date.parse('2026-11-22T00:00:00.000Z') },
    ),
    { result: 'unchanged' },
    'keep_active stays pending',
  );
});

t.test(
  'the payment page ending leg 1 without paying: failed keeps the reason the payer saw, expired expires; neither emits an event nor schedules leg 2',
  async (t) => {
    const failed = changed(transition(session(), { kind: 'page', outcome: 'failed', reason: 'card_declined' }));
    t.equal(failed.session.status, 'failed');
    t.equal(failed.session.failure_reason, 'card_declined');
    t.same(failed.events, []);
    t.equal(failed.schedule, undefined);
    t.equal(failed.session.session_id, 'ses_1', 'the rest of the session is kept');
    const expired = changed(transition(session(), { kind: 'page', outcome: 'expired' }));
    t.equal(expired.session.status, 'expired');
    t.same(expired.events, []);
    t.equal(expired.schedule, undefined);
    t.equal(expired.session.amount_cents, 10_000, 'the rest of the session is kept');
    t.same(expired.session.accreditation, { status: 'none' });
  },
);

t.test('every refusal carries its code and a reason that names what was wrong', async (t) => {
  t.match(transition(session('paid'), { kind: 'expire' }), { code: 'SESSION_ALREADY_PAID', reason: /already paid/ });
  t.match(
    transition(session('failed'), {
      kind: 'page',
      outcome: 'paid',
      leg2: 'accredited',
      accreditAt: '2026-11-21T10:00:05.000Z',
    }),
    { result: 'rejected', code: 'SESSION_NOT_PAYABLE', reason: 'the session is failed, not pending' },
  );
  t.match(transition(session(), { kind: 'force', leg: 1, outcome: 'accredited' }), {
    code: 'INVALID_FORCED_TRANSITION',
    reason: 'accredited is not a leg 1 outcome; leg 1 takes paid, failed, expired',
  });
  t.match(transition(session('paid'), { kind: 'force', leg: 2, outcome: 'paid' }), {
    code: 'INVALID_FORCED_TRANSITION',
    reason: 'paid is not a leg 2 outcome; leg 2 takes accredited, accreditation_failed',
  });
  t.match(
    transition(session('paid', { accreditation: { status: 'failed' } }), {
      kind: 'force',
      leg: 2,
      outcome: 'accredited',
    }),
    { code: 'INVALID_FORCED_TRANSITION', reason: 'the accreditation already ended: failed' },
  );
});

t.test(
  'a scheduled accreditation: without a chosen outcome it accredits; on a session that is not paid (a record restored as it was) it does nothing',
  async (t) => {
    const noOutcome = changed(
      transition(
        session('paid', { accreditation: { status: 'scheduled', scheduled_for: '2026-11-21T10:00:05.000Z' } }),
        { kind: 'scheduled-accreditation' },
      ),
    );
    t.equal(noOutcome.session.accreditation.status, 'accredited');
    t.same(noOutcome.events, [{ event: 'payment_session.accredited' }]);
    for (const status of ['pending', 'failed', 'expired'] as const) {
      const stray = session(status, {
        accreditation: { status: 'scheduled', scheduled_for: '2026-11-21T10:00:05.000Z', outcome: 'accredited' },
      });
      t.equal(
        transition(stray, { kind: 'scheduled-accreditation' }).result,
        'unchanged',
        `${status}: no money is credited for a session that was never paid`,
      );
    }
  },
);

t.test('forcing leg 2 with nothing scheduled cancels nothing', async (t) => {
  const forced = changed(transition(session('paid'), { kind: 'force', leg: 2, outcome: 'accredited' }));
  t.equal(forced.schedule, undefined);
  t.same(forced.events, [{ event: 'payment_session.accredited' }]);
});

t.test(
  'the admissible forced outcomes are exactly those force() takes: leg 1 unless paid, leg 2 while paid and not yet ended',
  async (t) => {
    const pairs = (record: SessionRecord) => admissibleOutcomes(record).map(({ leg, outcome }) => `${leg}:${outcome}`);
    const leg1 = ['1:paid', '1:failed', '1:expired'];
    const leg2 = ['2:accredited', '2:accreditation_failed'];
    t.same(pairs(session('pending')), leg1);
    t.same(pairs(session('failed')), leg1, 'a failed session takes leg 1 again (the console once offered nothing)');
    t.same(pairs(session('expired')), leg1);
    t.same(pairs(session('paid')), leg2);
    t.same(
      pairs(session('paid', { accreditation: { status: 'scheduled', scheduled_for: '2026-11-21T11:00:00.000Z' } })),
      leg2,
      'a scheduled accreditation can still be forced',
    );
    t.same(pairs(session('paid', { accreditation: { status: 'accredited' } })), [], 'ended: none');
    for (const status of ['pending', 'failed', 'expired', 'paid'] as const) {
      for (const leg of [1, 2] as const) {
        for (const outcome of ['paid', 'failed', 'expired', 'accredited', 'accreditation_failed']) {
          const admitted = transition(session(status), { kind: 'force', leg, outcome }).result !== 'rejected';
          t.equal(
            pairs(session(status)).includes(`${leg}:${outcome}`),
            admitted,
            `${status}, leg ${leg} ${outcome}: as force() says`,
          );
        }
      }
    }
  },
);
