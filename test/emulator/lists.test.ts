// The list engine: filter, order_by, page_size, page_token, search and pinned, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { call, emulator } from '../helpers/emulator.js';

const R = 'CREATIVE_WORK_STATUS_RELEASED';
const S = 'CREATIVE_WORK_STATUS_SCHEDULED';
let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({
    creative_works: [
      {
        id: 'c1',
        project_id: 'p1',
        type_id: 'doc',
        title: 'banana',
        status: R,
        release_time: '2026-03-01T00:00:00Z',
        description: 'about the final',
      },
      {
        id: 'c2',
        project_id: 'p1',
        type_id: 'doc',
        title: 'Apple final',
        status: S,
        release_time: '2026-01-01T00:00:00Z',
      },
      { id: 'c3', project_id: 'p1', title: 'cherry', status: R, release_time: '2026-02-01T00:00:00Z' },
      { id: 'c4', project_id: 'p2', type_id: 'doc', title: 'Date', status: R },
      { id: 'c5', project_id: 'p1', type_id: 'clip', title: 'elder', status: R, description: 'Final highlights' },
    ],
  });
});
afterAll(() => emu.close());

const ids = async (query: string) => {
  const res = await call(emu, 'GET', `/cms/creative_works/v1?${query}`);
  expect(res.status).toBe(200);
  return res.body.creative_works.map((c: { id: string }) => c.id);
};

describe('creative works list', () => {
  it.each([
    ['', ['c1', 'c2', 'c3', 'c4', 'c5']],
    ['project_id=p1', ['c1', 'c2', 'c3', 'c5']],
    [`filter=${encodeURIComponent(`status:${R}`)}`, ['c1', 'c3', 'c4', 'c5']],
    [`filter=${encodeURIComponent(`status:${R} and type_id:doc`)}`, ['c1', 'c4']],
    [`filter=${encodeURIComponent('type_id:default')}`, ['c3']],
    [`filter=${encodeURIComponent('title:"Apple final"')}`, ['c2']],
    ['order_by=title%20asc', ['c2', 'c1', 'c3', 'c4', 'c5']],
    ['order_by=title%20desc', ['c5', 'c4', 'c3', 'c1', 'c2']],
    ['order_by=release_time%20asc&project_id=p1', ['c5', 'c2', 'c3', 'c1']],
    ['order_by=release_time%20desc&project_id=p1', ['c1', 'c3', 'c2', 'c5']],
    ['search=final', ['c2', 'c1', 'c5']],
    ['search=FINAL&order_by=title%20desc', ['c2', 'c1', 'c5']],
    ['pinned=c3&pinned=c1', ['c3', 'c1', 'c2', 'c4', 'c5']],
    [`pinned=c2&pinned=c3&filter=${encodeURIComponent(`status:${R}`)}`, ['c3', 'c1', 'c4', 'c5']],
    ['pinned=c3&search=final', ['c3', 'c2', 'c1', 'c5']],
  ])('?%s -> %j', async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it.each([
    [`filter=${encodeURIComponent(`status:${R} or type_id:doc`)}`, /filter/],
    ['filter=released', /field:value/],
    ['filter=nope:1', /cannot filter on "nope"/],
    ['order_by=name%20asc', /order_by must be one of/],
    ['order_by=title', /order_by/],
    ['page_size=-1', /page_size/],
    ['page_token=garbage', /page_token/],
  ])('?%s is 400', async (query, message) => {
    const res = await call(emu, 'GET', `/cms/creative_works/v1?${query}`);
    expect(res).toMatchObject({ status: 400, body: { code: 'invalid_argument' } });
    expect(res.body.message).toMatch(message);
  });

  it('pages through with opaque tokens; the last page has an empty token', async () => {
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const res = await call(
        emu,
        'GET',
        `/cms/creative_works/v1?page_size=2&order_by=title%20asc${token ? `&page_token=${token}` : ''}`,
      );
      seen.push(...res.body.creative_works.map((c: { id: string }) => c.id));
      token = res.body.next_page_token;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(['c2', 'c1', 'c3', 'c4', 'c5']);
  });

  it('a token is bound to its query', async () => {
    const first = await call(emu, 'GET', '/cms/creative_works/v1?page_size=1&project_id=p1');
    const other = await call(
      emu,
      'GET',
      `/cms/creative_works/v1?page_size=1&project_id=p2&page_token=${first.body.next_page_token}`,
    );
    expect(other.status).toBe(400);
  });

  it('page_size defaults to 50 and is capped at 1000', async () => {
    const many = Array.from({ length: 1100 }, (_, i) => ({ id: `w${i}`, project_id: 'p', title: `t${i}` }));
    const big = await emulator({ creative_works: many });
    try {
      const d = await call(big, 'GET', '/cms/creative_works/v1?page_size=0');
      expect(d.body.creative_works.length).toBe(50);
      const m = await call(big, 'GET', '/cms/creative_works/v1?page_size=5000');
      expect(m.body.creative_works.length).toBe(1000);
      expect(m.body.next_page_token).not.toBe('');
    } finally {
      await big.close();
    }
  });
});

describe('other lists', () => {
  it('configurations, offers, rulesets and events list by project with paging', async () => {
    const e = await emulator({
      configurations: [
        { id: 'a', project_id: 'p1', name: 'A' },
        { id: 'b', project_id: 'p2', name: 'B' },
      ],
      offers: [{ id: 'o1', project_id: 'p1' }],
      video_protection_rulesets: [{ id: 'v1', project_id: 'p1' }],
      events: [{ id: 'e1', project_id: 'p1' }],
    });
    try {
      expect((await call(e, 'GET', '/streaming/configurations/v1?project_id=p1')).body).toMatchObject({
        configurations: [{ id: 'a' }],
        next_page_token: '',
      });
      expect((await call(e, 'GET', '/monetization/offers/v1?project_id=p1')).body.offers.length).toBe(1);
      expect(
        (await call(e, 'GET', '/streaming/video_protection/v1/rulesets')).body.video_protection_rulesets.length,
      ).toBe(1);
      expect((await call(e, 'GET', '/cms/events/v1?project_id=p2')).body.events).toEqual([]);
    } finally {
      await e.close();
    }
  });
});
