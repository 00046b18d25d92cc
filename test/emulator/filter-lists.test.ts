// The filter on the stored resources, over real HTTP: the platform's types (enum names, `type_id:default`, timestamps
// as instants, exact strings, numbers, booleans), the server's choices (value lists, not, ranges, containment) the
// same on every list, and a bad filter as 400 naming the position.
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
        title: 'Rock and roll',
        status: R,
        release_time: '2026-03-01T00:00:00Z',
        video_ids: ['v1', 'v2'],
      },
      {
        id: 'c2',
        project_id: 'p1',
        type_id: 'doc',
        title: 'a:b',
        status: S,
        release_time: '2026-01-01T00:00:00.5Z',
        video_ids: ['v1'],
      },
      { id: 'c3', project_id: 'p1', title: 'cherry', status: R, release_time: '2026-02-01T00:00:00Z', video_ids: [] },
      { id: 'c4', project_id: 'p1', type_id: 'clip', title: '(x)' },
    ],
    events: [
      {
        id: 'e1',
        project_id: 'p1',
        title: 'one',
        status: 'EVENT_STATUS_SCHEDULED',
        start_time: '2026-05-01T18:00:00Z',
      },
      {
        id: 'e2',
        project_id: 'p1',
        title: 'two',
        status: 'EVENT_STATUS_FINISHED',
        start_time: '2026-05-01T18:00:00.250Z',
      },
      {
        id: 'e3',
        project_id: 'p1',
        title: 'three',
        status: 'EVENT_STATUS_FINISHED',
        start_time: '2026-05-01T19:59:59.999999999+02:00',
      },
      { id: 'e4', project_id: 'p1', title: 'four' },
    ],
    configurations: [
      { id: 's1', project_id: 'p1', name: 'streams', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: true },
      { id: 's2', project_id: 'p1', name: 'overlays', type: 'CONFIGURATION_TYPE_TRANSCODER_OVERLAYS' },
    ],
    offers: [
      { id: 'o1', project_id: 'p1', name: 'cheap', priority: 5 },
      { id: 'o2', project_id: 'p1', name: 'dear', priority: '20' },
    ],
    video_protection_rulesets: [
      { id: 'r1', project_id: 'p1', name: 'geo', allowed_domains: ['a.com', 'b.com'] },
      { id: 'r2', project_id: 'p1', name: 'open' },
    ],
  });
});
afterAll(() => emu.close());

const list = (path: string, query: Record<string, string>) => call(emu, 'GET', `${path}?${new URLSearchParams(query)}`);
const ids = async (path: string, key: string, query: Record<string, string>) => {
  const res = await list(path, query);
  return [res.status, res.body[key]?.map((r: { id: string }) => r.id) ?? res.body];
};

describe('creative works', () => {
  it.each([
    [`status:(${R} or ${S})`, ['c1', 'c2', 'c3']],
    [`not status:${R}`, ['c2', 'c4']],
    ['status:CREATIVE_WORK_STATUS_UNSPECIFIED', ['c4']],
    [`status:${R} type_id:doc`, ['c1']],
    ['type_id:default', ['c3']],
    ['not type_id:default', ['c1', 'c2', 'c4']],
    ['type_id:(default or clip)', ['c3', 'c4']],
    ['title:"Rock and roll"', ['c1']],
    ['title:a\\:b', ['c2']],
    ['title:"(x)"', ['c4']],
    ['title:Rock*', []],
    ['title:"rock and roll"', []],
    ['release_time >= "2026-01-01T00:00:00Z" and release_time < 2026-02-01T01\\:00\\:00+01\\:00', ['c2']],
    ['release_time:"2026-02-01T01:00:00+01:00"', ['c3']],
    ['release_time:2026-01-01T00\\:00\\:00.500000000Z', ['c2']],
    ['release_time > "2020-01-01T00:00:00Z"', ['c1', 'c2', 'c3']],
    ['not release_time:"2026-02-01T00:00:00Z"', ['c1', 'c2', 'c4']],
    ['video_ids >@ (v1 and v2)', ['c1']],
    ['video_ids >@ v1', ['c1', 'c2']],
    ['video_ids <@ (v1)', ['c2', 'c3', 'c4']],
    ['true', ['c1', 'c2', 'c3', 'c4']],
    [`status:${R} false`, []],
  ])('filter=%s', async (filter, expected) => {
    expect(await ids('/cms/creative_works/v1', 'creative_works', { filter })).toEqual([200, expected]);
  });

  it.each([
    ['status:RELEASED', /status takes one of CREATIVE_WORK_STATUS_UNSPECIFIED, .* not "RELEASED" at position 1$/],
    ['type_id:doc title>a', /title cannot be compared with > .* at position 13$/],
    ['release_time:yesterday', /release_time takes an RFC 3339 timestamp, not "yesterday" at position 1$/],
    ['video_ids:v1', /video_ids is a list: use video_ids >@ \(values\) or video_ids <@ \(values\) at position 1$/],
    [`status >@ (${R})`, />@ applies to list fields only at position 1$/],
    ['fields:x', /cannot filter on "fields" at position 1$/],
    ['type_id:doc nope:1', /cannot filter on "nope" at position 13$/],
    ['"title":x', /cannot filter on "\\"title\\"" at position 1$/],
    ['title:(a or b', /unclosed "\(" at position 7$/],
    ['title:Rock and roll', /a bare value "roll" is not a clause .* at position 16$/],
  ])('filter=%s is 400', async (filter, message) => {
    const res = await list('/cms/creative_works/v1', { filter });
    expect(res).toMatchObject({ status: 400, body: { code: 'invalid_argument' } });
    expect(res.body.message).toMatch(message);
  });
});

describe('events', () => {
  it.each([
    [{ order_by: 'start_time asc' }, ['e4', 'e3', 'e1', 'e2']],
    [{ order_by: 'start_time desc' }, ['e2', 'e1', 'e3', 'e4']],
    [{ filter: 'start_time >= "2026-05-01T18:00:00Z"' }, ['e1', 'e2']],
    [{ filter: 'start_time < 2026-05-01T20\\:00\\:00+02\\:00' }, ['e3']],
    [{ filter: 'status:EVENT_STATUS_FINISHED', order_by: 'start_time asc' }, ['e3', 'e2']],
    [{ filter: 'not status:EVENT_STATUS_FINISHED' }, ['e1', 'e4']],
  ])('%j', async (query, expected) => {
    expect(await ids('/cms/events/v1', 'events', query)).toEqual([200, expected]);
  });

  it.each([
    [
      { order_by: 'release_time asc' },
      /order_by must be one of: title asc, title desc, start_time asc, start_time desc/,
    ],
    [
      { filter: 'status:CREATIVE_WORK_STATUS_RELEASED' },
      /status takes one of EVENT_STATUS_UNSPECIFIED, .* at position 1$/,
    ],
  ])('%j is 400', async (query, message) => {
    const res = await list('/cms/events/v1', query);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });
});

describe('the other lists take the same filter', () => {
  it.each([
    ['/streaming/configurations/v1', 'configurations', 'workflow_id:wf1', []],
    ['/streaming/configurations/v1', 'configurations', 'not workflow_id:wf1', ['s1', 's2']],
    ['/streaming/configurations/v1', 'configurations', 'default:true', ['s1']],
    ['/streaming/configurations/v1', 'configurations', 'default:F', ['s2']],
    [
      '/streaming/configurations/v1',
      'configurations',
      'type:(CONFIGURATION_TYPE_TRANSCODER_OVERLAYS or CONFIGURATION_TYPE_AUTOMATED_TAGGING)',
      ['s2'],
    ],
    ['/monetization/offers/v1', 'offers', 'priority >= 10', ['o2']],
    ['/monetization/offers/v1', 'offers', 'priority:05', ['o1']],
    ['/streaming/video_protection/v1/rulesets', 'video_protection_rulesets', 'allowed_domains >@ b.com', ['r1']],
    [
      '/streaming/video_protection/v1/rulesets',
      'video_protection_rulesets',
      'allowed_domains <@ (a.com and b.com and c.com)',
      ['r1', 'r2'],
    ],
  ])('%s filter=%s', async (path, key, filter, expected) => {
    expect(await ids(path, key, { filter })).toEqual([200, expected]);
  });

  it.each([
    ['/streaming/configurations/v1', 'default:yes', /default takes true or false, not "yes" at position 1$/],
    ['/monetization/offers/v1', 'priority > 1.5', /priority takes an integer, not "1.5" at position 1$/],
    ['/streaming/configurations/v1', 'workflow_id > a', /workflow_id cannot be compared with > .* at position 1$/],
  ])('%s filter=%s is 400', async (path, filter, message) => {
    const res = await list(path, { filter });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });
});
