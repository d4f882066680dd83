import { parseArgs } from 'node:util';
import t from 'tap';
import { parseErrorInWords } from './parse-words.js';

// Every command says a mistyped command line in the same words, without
// the parser's advice about '--'.

const said = (
  args: string[],
  options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']> = {},
  allowPositionals = true,
) => {
  try {
    parseArgs({ args, options, allowPositionals });
    return 'parsed';
  } catch (error) {
    return parseErrorInWords(error);
  }
};

t.test('the parser mistakes, in our words', async (t) => {
  t.equal(said(['--bogus']), 'unknown option --bogus');
  t.equal(said(['-x']), 'unknown option -x');
  t.equal(said(['--base-url'], { 'base-url': { type: 'string' } }), '--base-url needs a value');
  t.equal(said(['--debug=yes'], { debug: { type: 'boolean' } }), '--debug takes no value');
  t.equal(said(['extra'], {}, false), 'unexpected argument "extra"');
  t.equal(parseErrorInWords(new Error('something else')), 'something else');
});
