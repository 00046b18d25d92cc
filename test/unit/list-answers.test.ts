// AnswersById: a list's answers handed to the documents waiting for them as its pages arrive, each taken once, and
// undefined for an id the list did not answer once it is done (that document is then read with a GET).
import { describe, expect, it } from 'vitest';
import { AnswersById, listSome } from '../../src/live/list.js';
import type { Caller } from '../../src/remote/client.js';

const r = (id: string) => ({ id, name: `n${id}` });

describe('AnswersById', () => {
  it.each<[string, (a: AnswersById) => Promise<unknown>, unknown]>([
    ['answered before it is asked', async (a) => (a.answer('1', r('1')), a.take('1')), r('1')],
    [
      'asked before it is answered',
      async (a) => {
        const taken = a.take('1');
        a.answer('1', r('1'));
        return taken;
      },
      r('1'),
    ],
    [
      'never answered: undefined once the list is done',
      async (a) => {
        const taken = a.take('2');
        a.answer('1', r('1'));
        a.finish();
        return taken;
      },
      undefined,
    ],
    ['asked after the list is done, never answered', async (a) => (a.finish(), a.take('2')), undefined],
    [
      'taken once: a second take gets undefined',
      async (a) => {
        a.answer('1', r('1'));
        a.finish();
        await a.take('1');
        return a.take('1');
      },
      undefined,
    ],
    [
      'the first answer counts',
      async (a) => (a.answer('1', r('1')), a.answer('1', { id: '1', name: 'later' }), a.take('1')),
      r('1'),
    ],
  ])('%s', async (_, steps, expected) => {
    expect(await steps(new AnswersById())).toEqual(expected);
  });

  it('says whether an answer is the first for its id', () => {
    const a = new AnswersById();
    expect([a.answer('1', r('1')), a.answer('1', r('1'))]).toEqual([true, false]);
  });
});

describe('listSome', () => {
  // Two pages of two; the ids asked are on the first page only, so the second is never read.
  const pages = [
    { items: [r('1'), r('2')], next_page_token: 'p2' },
    { items: [r('3'), r('4')], next_page_token: '' },
  ];
  const caller = (paths: string[]): Caller => ({
    call: async (_m, path) => {
      paths.push(path);
      return { status: 200, body: pages[path.includes('page_token') ? 1 : 0] };
    },
  });
  const list = { path: '/things', items: 'items', scope: [] };

  it('hands each one found to the waiting document as its page arrives, and stops once all are found', async () => {
    const paths: string[] = [];
    const answers = new AnswersById();
    const taken = Promise.all([answers.take('2'), answers.take('1')]);
    await listSome(caller(paths), list, {}, new Set(['1', '2']), answers);
    expect(await taken).toEqual([r('2'), r('1')]);
    expect(paths).toHaveLength(1);
  });

  it('leaves an id no page holds to be read one GET: undefined once finished', async () => {
    const answers = new AnswersById();
    const missing = answers.take('9');
    await listSome(caller([]), list, {}, new Set(['3', '9']), answers);
    answers.finish();
    expect(await missing).toBeUndefined();
    expect(await answers.take('3')).toEqual(r('3'));
  });
});
