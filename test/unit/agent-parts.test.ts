// The agent's pure parts, as tables: durations, listen addresses, the webhook's signature and what a delivery asks
// for, which notifications a run's report makes (each drift or failure told once), and the log's escaping.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { notifications, syncOf } from '../../src/agent/events.js';
import type { RunReport } from '../../src/agent/reconcile.js';
import { notifyFileUrls, parseDuration, parseListen } from '../../src/agent/settings.js';
import { hookAction, signatureValid } from '../../src/agent/webhook.js';
import { makeLog, type Fields } from '../../src/agent/log.js';
import { refusalLog } from '../../src/agent/refusals.js';
import { until } from '../helpers/agent.js';
import { UNPRINTABLE } from '../../src/schema/values.js';
import type { Io } from '../../src/types.js';

describe('agent settings', () => {
  it.each([
    ['200ms', 200],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['100ms', 100],
  ])('duration %s is %d ms', (raw, ms) => {
    expect(parseDuration('--interval', raw)).toBe(ms);
  });
  it.each(['5', '99ms', '0s', '1.5m', '5 m', 'm', '-1s', '1x'])('duration %j is refused', (raw) => {
    expect(() => parseDuration('--interval', raw)).toThrow(/--interval must be a duration of at least 100ms/);
  });
  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
    ['[::1]:80', { host: '::1', port: 80 }],
    [':9464', { host: '127.0.0.1', port: 9464 }],
    ['localhost:1', { host: 'localhost', port: 1 }],
  ])('listen %s', (raw, expected) => {
    expect(parseListen(raw)).toEqual(expected);
  });
  it.each(['9464', 'host', 'h:70000', '::1:80', 'a b:1', 'h:'])('listen %j is refused', (raw) => {
    expect(() => parseListen(raw)).toThrow(/--listen takes HOST:PORT/);
  });
});

describe('--notify-file', () => {
  it('one URL a line; blank lines and # comments skipped', () => {
    const text = '# slack\nhttps://hooks.example.com/T0/B0/k1\n\n  http://127.0.0.1:9/x  \r\n# end\n';
    expect(notifyFileUrls('urls', text)).toEqual(['https://hooks.example.com/T0/B0/k1', 'http://127.0.0.1:9/x']);
  });
  it.each([
    ['hooks.example.com/T0/B0/s3cr3t', 'urls:2:'],
    ['ftp://host/s3cr3t', 'urls:2:'],
  ])('%j is refused, located by its line, not repeated', (line, where) => {
    expect(() => notifyFileUrls('urls', `https://ok.example/a\n${line}\n`)).toThrow(
      new RegExp(`^${where} not an http\\(s\\) URL`),
    );
    expect(() => notifyFileUrls('urls', `https://ok.example/a\n${line}\n`)).not.toThrow(/s3cr3t/);
  });
});

describe('the webhook', () => {
  const body = Buffer.from('{"ref":"refs/heads/main"}');
  const sig = (secret: string, b = body) => `sha256=${createHmac('sha256', secret).update(b).digest('hex')}`;
  it.each([
    ['the right signature', 's', sig('s'), true],
    ['another secret', 's', sig('t'), false],
    ['no secret configured', undefined, sig('s'), false],
    ['no header', 's', undefined, false],
    ['sha1', 's', sig('s').replace('sha256=', 'sha1='), false],
    ['cut short', 's', sig('s').slice(0, -2), false],
    ['not hex', 's', `sha256=${'z'.repeat(64)}`, false],
    ['upper-case hex (Buffer reads it the same)', 's', `sha256=${sig('s').slice(7).toUpperCase()}`, true],
    ['another body', 's', sig('s', Buffer.from('{}')), false],
    ['the right one and trailing characters', 's', `${sig('s')}00`, false],
    ['the right one and a space', 's', `${sig('s')} `, false],
    ['two joined with a comma (a repeated header)', 's', `${sig('s')}, ${sig('t')}`, false],
    ['the right one twice, joined', 's', `${sig('s')},${sig('s')}`, false],
    ['a space before it', 's', ` ${sig('s')}`, false],
    ['an upper-case algorithm', 's', sig('s').replace('sha256=', 'SHA256='), false],
  ])('%s', (_what, secret, header, ok) => {
    expect(signatureValid(secret, body, header)).toBe(ok);
  });
  it.each([
    ['push', '{"ref":"refs/heads/main"}', 'run'],
    ['push', '{"ref":"refs/heads/other"}', 'ignore'],
    ['push', '{"ref":"refs/tags/v1"}', 'ignore'],
    ['push', 'payload=%7B%7D', 'run'],
    ['ping', '{}', 'pong'],
    ['issues', '{}', 'ignore'],
    [undefined, '{}', 'ignore'],
  ])('event %s with %s: %s', (event, text, action) => {
    expect(hookAction(event, Buffer.from(text), 'main')).toBe(action);
  });
  const form = (payload: object) => new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  it.each([
    ['our branch', form({ ref: 'refs/heads/main' }), 'run'],
    ['another branch', form({ ref: 'refs/heads/other' }), 'ignore'],
    ['a tag', form({ ref: 'refs/tags/v1' }), 'ignore'],
    ['no ref', form({}), 'run'],
    ['no payload field', 'other=1', 'run'],
  ])('a form-encoded push for %s: %s', (_what, text, action) => {
    expect(hookAction('push', Buffer.from(text), 'main', 'application/x-www-form-urlencoded')).toBe(action);
  });
});

describe("the webhook's refusals in the log", () => {
  it('the first of each reason is a line at once; the repeats within the window, one line when it ends', async () => {
    const lines: Fields[] = [];
    const refused = refusalLog((_level, _msg, fields = {}) => lines.push(fields), 50);
    for (let i = 0; i < 1000; i++) refused('wrong signature');
    refused('no X-Hub-Signature-256');
    expect(lines).toEqual([{ reason: 'wrong signature' }, { reason: 'no X-Hub-Signature-256' }]);
    await until('the window to end', () => lines.length === 3);
    expect(lines[2]).toEqual({ reason: 'wrong signature', repeated: 999, window_ms: 50 });
  });
});

describe('notifications of a run', () => {
  const base: RunReport = {
    result: 'success',
    refresh: 'full',
    details: [],
    requests: { reads: 1, writes: 0, throttled: 0 },
    commit: 'c'.repeat(40),
  };
  const summary = { create: 0, update: 1, replace: 0, move: 0, release: 0, restore: 0, noop: 0 };
  const drift: RunReport = { ...base, summary, changes: [{ address: 'Offer/a', action: 'update' }] };
  const applied: RunReport = {
    ...drift,
    applied: { applied: 1, failed: 0, skipped: 0, unknown: 0, not_kept: 0, unchanged: 0 },
  };
  const failed: RunReport = { ...base, result: 'failed', error: 'cannot reach the platform' };
  const invalid: RunReport = {
    ...base,
    result: 'invalid',
    rejected: 'd'.repeat(40),
    error: 'commit dddd was not applied: x',
  };
  const hold = (address: string) => ({
    address,
    action: 'update',
    windows: ['matches'],
    next_allowed: '2026-12-05T21:30:00Z',
  });
  const held: RunReport = { ...applied, applied: { ...applied.applied!, applied: 0 }, held: [hold('Offer/a')] };
  const heldMore: RunReport = { ...held, held: [hold('Offer/a'), hold('Offer/b')] };
  const clean: RunReport = { ...base, summary: { ...summary, update: 0, noop: 1 }, changes: [] };
  it.each([
    ['a drift once, however many runs find it', [drift, drift, drift], ['drift']],
    ['a drift again after it was gone', [drift, clean, drift], ['drift', 'drift']],
    ['applied changes each time', [applied, applied], ['applied', 'applied']],
    ['a failure once, again after a success', [failed, failed, clean, failed], ['failed', 'failed']],
    ['a rejected commit once', [invalid, invalid], ['invalid']],
    ['nothing for a clean run', [clean, clean], []],
    [
      'changes held by a window once, again when the held set changes',
      [held, held, applied, held, heldMore],
      ['held', 'applied', 'held', 'held'],
    ],
  ])('%s', (_what, reports, events) => {
    const told = { drift: '', failure: '', held: '' };
    expect(reports.flatMap((r) => notifications(r, 'prod', told)).map((e) => e.event)).toEqual(events);
  });
  it("a failure and a rejected commit carry the error's stable code", () => {
    const told = { drift: '', failure: '', held: '' };
    const coded = (r: RunReport, errorCode: RunReport['errorCode']) => notifications({ ...r, errorCode }, 'prod', told);
    expect(coded(failed, 'E_NETWORK')).toEqual([expect.objectContaining({ event: 'failed', error_code: 'E_NETWORK' })]);
    expect(coded(invalid, 'E_VALIDATION')).toEqual([
      expect.objectContaining({ event: 'invalid', error_code: 'E_VALIDATION' }),
    ]);
  });
  it('says it in one line, Slack-compatible', () => {
    const [e] = notifications(drift, 'prod', { drift: '', failure: '', held: '' });
    expect(e).toMatchObject({
      event: 'drift',
      environment: 'prod',
      text: 'tapedeck prod: 1 resource differs from commit cccccccccccc (not applied: the agent only reports): update Offer/a',
    });
  });
});

describe('the log', () => {
  // A commit message, a document's value or a server's error in a field: nothing in it may move or hide text.
  const hostile = 'a\u2028b\u202ec\u200bd\u200ee\u001b[31mf\ng';
  it.each(['json', 'text'] as const)(
    '--log-format %s escapes every hidden character, and JSON reads back the value',
    (format) => {
      let out = '';
      makeLog(
        {
          err: (t: string) => {
            out += t;
          },
        } as unknown as Io,
        format,
        false,
      )('info', 'run failed', { error: hostile });
      expect(out.endsWith('\n')).toBe(true);
      expect(out.slice(0, -1)).not.toMatch(new RegExp(UNPRINTABLE.source));
      if (format === 'json') expect(JSON.parse(out).error).toBe(hostile);
    },
  );
});

describe('the sync status of a run', () => {
  const good = 'a'.repeat(40);
  const bad = 'b'.repeat(40);
  const run: RunReport = {
    result: 'success',
    refresh: 'full',
    details: [],
    requests: { reads: 0, writes: 0, throttled: 0 },
  };
  it.each([
    ['a clean run at the tip', { ...run, tip: good, remaining: 0 }, { good }, 'synced'],
    ['changes left (report only, or not all applied)', { ...run, tip: good, remaining: 2 }, { good }, 'out_of_sync'],
    ['a run of the old commit while the tip is rejected', { ...run, tip: bad }, { good, rejected: bad }, 'rejected'],
    [
      'a failed run while the tip is rejected',
      { ...run, result: 'failed', tip: bad },
      { good, rejected: bad },
      'rejected',
    ],
    ['a failed run', { ...run, result: 'failed', tip: good }, { good }, 'failed'],
    ['a fetch that failed: the tip as last seen', { ...run, result: 'failed' }, { good }, 'failed'],
  ] as const)('%s', (_what, report, commits, status) => {
    expect(syncOf(report as RunReport, commits, good)).toEqual({ status, commit: good, tip: report.tip ?? good });
  });
});
