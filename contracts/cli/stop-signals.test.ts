import t from 'tap';
import { ancestry, onStopRequest } from './stop-signals.js';

t.test('a stop request: a signal, or the parent gone; once', async (t) => {
  let parent = 100;
  const whys: string[] = [];
  const unwatch = onStopRequest((why) => whys.push(why), { everyMs: 5, lineage: () => [parent, 7] });
  t.teardown(unwatch);
  process.emit('SIGHUP');
  t.same(whys, ['SIGHUP'], 'a hang-up stops it');
  parent = 1;
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.same(whys, ['SIGHUP'], 'and only once');

  const second: string[] = [];
  let other = 200;
  const unwatchSecond = onStopRequest((why) => second.push(why), { everyMs: 5, lineage: () => [300, other] });
  t.teardown(unwatchSecond);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.same(second, [], 'the same parent: nothing');
  other = 1;
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.same(second, ['its parent went away'], 'its parent re-parented (the shell under a killed npx): stop');
});

t.test("the ancestry read from /proc: this process's parent, then its parent", (t) => {
  const [parent, grandparent] = ancestry();
  t.equal(parent, process.ppid);
  if (process.platform === 'linux') t.type(grandparent, 'number');
  t.end();
});
