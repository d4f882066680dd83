import t from 'tap';
import type { ResumeMessage } from '../relay-messages.js';
import { RelayCursor } from './relay-cursor.js';

const resume = (fields: Partial<ResumeMessage>): ResumeMessage => ({
  type: 'resume',
  v: 1,
  cursor: 0,
  up_to: 0,
  resending: [],
  pending: [],
  left_out: 0,
  from: null,
  ...fields,
});

t.test('the cursor moves only over positions answered 2xx, without a gap', async (t) => {
  const saved: number[] = [];
  const cursor = new RelayCursor(null, (position) => saved.push(position));
  cursor.answered(1, 200);
  t.equal(cursor.position, null, 'before the server says where it stands, nothing moves');
  cursor.resumed(resume({ cursor: 4, up_to: 4 }));
  t.same(saved, [4], "the server's cursor is kept");
  cursor.answered(6, 200);
  t.equal(cursor.position, 4, 'a gap (5 not yet seen) holds it');
  cursor.answered(5, 500);
  t.equal(cursor.position, 4, 'so does a refusal');
  cursor.answered(5, 204);
  t.equal(cursor.position, 6, 'filled: it moves over both');
  cursor.answered(3, 200);
  t.equal(cursor.position, 6, 'an old position changes nothing');
  t.same(saved, [4, 6]);
});

t.test(
  'on a resume, what the server vouches for counts as answered; what it resends or still owes does not',
  async (t) => {
    const cursor = new RelayCursor(2);
    cursor.resumed(resume({ cursor: 2, up_to: 9, resending: [3, 7], pending: [5] }));
    t.equal(cursor.position, 2, '3 is owed');
    cursor.answered(3, 200);
    t.equal(cursor.position, 4, 'then 4 (vouched for), up to the pending 5');
    cursor.answered(7, 200);
    t.equal(cursor.position, 4);
    cursor.answered(5, 200);
    t.equal(cursor.position, 9, 'everything to up_to');
    cursor.answered(10, 200);
    t.equal(cursor.position, 10, 'and on with what comes live');
  },
);

t.test('only a 2xx moves it: 199 and 300 are not', async (t) => {
  const cursor = new RelayCursor(0);
  cursor.resumed(resume({ cursor: 0, up_to: 0 }));
  cursor.answered(1, 199);
  t.equal(cursor.position, 0, 'an informational answer');
  cursor.answered(1, 300);
  t.equal(cursor.position, 0, 'a redirect');
  cursor.answered(1, 299);
  t.equal(cursor.position, 1, 'the last 2xx');
  cursor.answered(2, 200);
  t.equal(cursor.position, 2, 'the first');
});

t.test(
  'nothing is kept that can never move it: answers before the first resume, or at or below the cursor',
  async (t) => {
    const cursor = new RelayCursor(null);
    cursor.answered(1, 200);
    t.equal(cursor.waiting, 0, 'before the first resume');
    cursor.resumed(resume({ cursor: 4, up_to: 4 }));
    t.equal(cursor.waiting, 0, 'nothing at or below the resumed cursor');
    cursor.answered(4, 200);
    cursor.answered(3, 200);
    t.equal(cursor.waiting, 0, 'answers at or below the cursor');
    cursor.answered(6, 200);
    t.equal(cursor.waiting, 1, 'one held behind the gap at 5');
    cursor.answered(5, 200);
    t.same([cursor.position, cursor.waiting], [6, 0]);
    cursor.resumed(resume({ cursor: 6, up_to: 9, pending: [7] }));
    t.same([cursor.position, cursor.waiting], [6, 2], '8 and 9 vouched for, held behind 7');
  },
);
