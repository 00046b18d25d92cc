// The call log: every request in arrival order with method, path, status and what it did; faults; the bound; the
// read-only debug endpoint; never a body or a token.
import { afterEach, describe, expect, it } from 'vitest';
import { CALLS_PATH, CallLog } from '../../src/emulator/calls.js';
import type { Emulator } from '../../src/emulator/server.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** A request on its own connection (a dropped one cannot spoil the next); its status, or 'dropped'. */
async function outcome(e: Emulator, method: string, path: string, body?: unknown): Promise<number | 'dropped'> {
  try {
    const res = await fetch(`${e.url}${path}`, {
      method,
      headers: { authorization: 'Bearer dev-token', connection: 'close', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 'dropped';
  }
}

describe('the call log', () => {
  it('records every request in arrival order: method, path with query, status, whether it wrote', async () => {
    emu = await emulator({
      offers: [{ id: 'o1', project_id: 'p' }],
      events: [{ id: 'e1', project_id: 'p', title: 'T' }],
    });
    const started = Date.now();
    await call(emu, 'GET', '/monetization/offers/v1/o1');
    await call(emu, 'GET', '/monetization/offers/v1?project_id=p&page_size=2');
    const made = await call(emu, 'POST', '/monetization/offers/v1', {
      project_id: 'p',
      name: 'body-text-never-logged',
    });
    await call(emu, 'PATCH', '/monetization/offers/v1/o1', { offer: { name: 'x' }, update_mask: 'no_such_field' });
    const dup = await call(emu, 'POST', '/cms/events/v1/e1/duplicate', { event: { title: '%@ again' } });
    await call(emu, 'PUT', '/iam/auth/v1/policies/o/organization', { policy: { bindings: [] } }, '');
    await call(emu, 'DELETE', '/monetization/offers/v1/o1');
    await call(emu, 'GET', '/streaming/vods/v1/missing');

    expect(emu.calls()).toEqual([
      {
        seq: 1,
        caller: 0,
        at: expect.any(Number),
        method: 'GET',
        path: '/monetization/offers/v1/o1',
        write: false,
        status: 200,
        answered: 1,
        stored: false,
      },
      {
        seq: 2,
        caller: 0,
        at: expect.any(Number),
        method: 'GET',
        path: '/monetization/offers/v1?project_id=p&page_size=2',
        write: false,
        status: 200,
        answered: 2,
        stored: false,
      },
      {
        seq: 3,
        caller: 0,
        at: expect.any(Number),
        method: 'POST',
        path: '/monetization/offers/v1',
        write: true,
        status: 200,
        answered: 3,
        stored: true,
        created: made.body.offer.id,
      },
      {
        seq: 4,
        caller: 0,
        at: expect.any(Number),
        method: 'PATCH',
        path: '/monetization/offers/v1/o1',
        write: true,
        status: 400,
        answered: 4,
        stored: false,
      },
      {
        seq: 5,
        caller: 0,
        at: expect.any(Number),
        method: 'POST',
        path: '/cms/events/v1/e1/duplicate',
        write: true,
        status: 200,
        answered: 5,
        stored: true,
        created: dup.body.event.id,
      },
      {
        seq: 6,
        at: expect.any(Number),
        method: 'PUT',
        path: '/iam/auth/v1/policies/o/organization',
        write: true,
        status: 401,
        answered: 6,
        stored: false,
      },
      {
        seq: 7,
        caller: 0,
        at: expect.any(Number),
        method: 'DELETE',
        path: '/monetization/offers/v1/o1',
        write: true,
        status: 404,
        answered: 7,
        stored: false,
      },
      {
        seq: 8,
        caller: 0,
        at: expect.any(Number),
        method: 'GET',
        path: '/streaming/vods/v1/missing',
        write: false,
        status: 404,
        answered: 8,
        stored: false,
      },
    ]);
    expect(emu.writes().map((c) => c.seq)).toEqual([3, 4, 5, 6, 7]);
    // Arrival times are the wall clock's, in order (a rate is read off them).
    const at = emu.calls().map((c) => c.at);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(Math.abs(at[0] - started)).toBeLessThan(60_000);
    const text = JSON.stringify(emu.calls());
    expect(text).not.toContain('body-text-never-logged');
    expect(text).not.toContain('dev-token');
  });

  it('names the caller by the place of its token in the accepted list, never by the token', async () => {
    emu = await emulator({}, { tokens: ['token-of-a', 'token-of-b'] });
    await call(emu, 'GET', '/streaming/vods/v1/missing', undefined, 'token-of-b');
    await call(emu, 'GET', '/streaming/vods/v1/missing', undefined, 'token-of-a');
    await call(emu, 'GET', '/streaming/vods/v1/missing', undefined, 'not-a-token');
    expect(emu.calls().map((c) => c.caller)).toEqual([1, 0, undefined]);
    expect(JSON.stringify(emu.calls())).not.toContain('token-of');
  });

  it('a policy PUT that took effect is stored, but creates nothing new to name', async () => {
    emu = await emulator();
    await call(emu, 'PUT', '/iam/auth/v1/policies/o/organization', { policy: { bindings: [] } });
    expect(emu.writes()).toEqual([expect.objectContaining({ method: 'PUT', status: 200, stored: true })]);
    expect(emu.writes()[0].created).toBeUndefined();
  });

  it('keeps arrival order under concurrency and numbers the answers in the order they went out', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p' }] }, { latencyMs: 5 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => call(emu!, 'GET', `/streaming/vods/v1/v1?i=${i}`)));
    const calls = emu.calls();
    expect(calls.map((c) => c.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(calls.every((c) => c.status === 200)).toBe(true);
    expect(new Set(calls.map((c) => c.answered)).size).toBe(20);
    expect(calls.map((c) => c.path).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `/streaming/vods/v1/v1?i=${i}`).sort(),
    );
  });

  it('a faulted request names its fault; a drop has no status; only a drop after the write stored it', async () => {
    emu = await emulator(
      { offers: [{ id: 'o1', project_id: 'p' }] },
      { faultRate: 1, faultSeed: 3, faultOn: 'writes' },
    );
    const seen: (number | 'dropped')[] = [];
    for (let i = 0; i < 24; i++) {
      seen.push(await outcome(emu, 'GET', '/monetization/offers/v1/o1'));
      seen.push(
        await outcome(emu, 'PATCH', '/monetization/offers/v1/o1', { offer: { name: `n${i}` }, update_mask: 'name' }),
      );
    }
    const calls = emu.calls();
    expect(calls.map((c) => c.status ?? 'dropped')).toEqual(seen);
    expect(calls.filter((c) => !c.write).every((c) => c.fault === undefined && c.status === 200)).toBe(true);
    const expected = {
      unavailable: { status: 503, stored: false },
      rate_limited: { status: 429, stored: false },
      drop_before: { status: null, stored: false },
      drop_after: { status: null, stored: true },
    };
    const writes = emu.writes();
    expect(writes).toHaveLength(24);
    expect(writes.map((w) => ({ status: w.status, stored: w.stored }))).toEqual(writes.map((w) => expected[w.fault!]));
    const counts = { unavailable: 0, rate_limited: 0, drop_before: 0, drop_after: 0 };
    for (const w of emu.writes()) counts[w.fault!]++;
    expect(counts).toEqual(emu.stats.faults);
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);
  });

  it('is bounded: the last calls, a count of those that fell out, and a way to clear it', async () => {
    emu = await emulator({}, { callLogSize: 3 });
    for (let i = 1; i <= 5; i++) await call(emu, 'GET', `/cms/events/v1?n=${i}`);
    expect(emu.calls().map((c) => [c.seq, c.path])).toEqual([
      [3, '/cms/events/v1?n=3'],
      [4, '/cms/events/v1?n=4'],
      [5, '/cms/events/v1?n=5'],
    ]);
    expect(emu.callLog.dropped).toBe(2);
    emu.clearCalls();
    expect(emu.calls()).toEqual([]);
    expect(emu.callLog.dropped).toBe(0);
    await call(emu, 'GET', '/cms/events/v1');
    expect(emu.calls()).toMatchObject([{ seq: 6, answered: 6 }]);
  });

  it('the ring keeps its order across many wraps and hands out copies', () => {
    const log = new CallLog(4);
    for (let i = 0; i < 11; i++) log.answer(log.arrive('GET', `/x/${i}`), 200);
    expect(log.entries().map((c) => c.path)).toEqual(['/x/7', '/x/8', '/x/9', '/x/10']);
    expect(log.dropped).toBe(7);
    log.entries()[0].status = 500;
    expect(log.entries()[0].status).toBe(200);
    expect(() => new CallLog(0)).toThrow(RangeError);
  });

  it('is served read-only under /_emulator, with the token, and reading it is not logged', async () => {
    emu = await emulator({}, { callLogSize: 5 });
    await call(emu, 'GET', '/cms/events/v1');
    expect((await call(emu, 'GET', CALLS_PATH, undefined, '')).status).toBe(401);
    expect((await call(emu, 'GET', CALLS_PATH, undefined, 'wrong')).status).toBe(401);
    expect((await call(emu, 'POST', CALLS_PATH, {})).status).toBe(404);
    const res = await call(emu, 'GET', CALLS_PATH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      calls: [
        {
          seq: 1,
          at: expect.any(Number),
          method: 'GET',
          path: '/cms/events/v1',
          write: false,
          status: 200,
          answered: 1,
          stored: false,
          caller: 0,
        },
      ],
      dropped: 0,
      capacity: 5,
    });
    expect(emu.stats).toMatchObject({ reads: 1, writes: 0 });
  });
});
