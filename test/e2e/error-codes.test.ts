// Every stable error code (src/errors.ts, docs/errors.md) comes out of a real failing run of the CLI against the
// real emulator, and shows in its JSON output: `errors[].code` for a failure, `issues[].code` for problems in the
// input, `results[].error_code` for an apply's failed writes. Text output keeps its wording, exit 1.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/errors.js';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir, type CliRun } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { hostileServer } from '../helpers/hostile.js';

let emu: Emulator;
let limited: Emulator;
/** Every write fails (503, or no answer) and nothing retries; a platform of its own each time, so that the
 *  seeded faults do not depend on which case ran before. */
const opened: Emulator[] = [];
async function faulty() {
  opened.push(await emulator({}, { faultRate: 1, faultOn: 'writes', faultSeed: 1 }));
  return opened.at(-1)!.url;
}
beforeAll(async () => {
  emu = await emulator({ offers: [{ id: 'off_live', project_id: 'p', name: 'Live' }] });
  const offers = ['1', '2', '3'].map((i) => ({ id: `off_${i}`, project_id: 'p', name: i }));
  limited = await emulator({ offers }, { rateLimits: [{ prefix: '', rps: 1 }], rateLimitHeaders: false });
});
afterAll(async () => {
  await emu.close();
  for (const e of opened) await e.close();
  await limited.close();
});

let n = 0;
const offer = (name: string, spec: object = {}) => ({
  kind: 'Offer',
  name,
  spec: { project_id: 'p', name: `Offer ${name} ${n++}`, ...spec },
});
/** A configuration of one offer, named (a state belongs to one configuration). */
const setup = (files: Record<string, string | object | object[]> = {}) =>
  testdir({ 'tapedeck.yaml': 'version: 1\nname: codes\n', 'a.yaml': offer('o'), ...files });
const run = (dir: string, args: string[], env?: Record<string, string>) =>
  runCli([...args, '--format', 'json'], { cwd: dir, env });
const apply = (dir: string, url = emu.url, ...rest: string[]) =>
  runCli(['apply', ...against(url, dir), '--yes', ...rest], { cwd: dir });

/** The codes a run's JSON output carries, wherever its shape puts them. */
function codes(r: CliRun): string[] {
  const out = JSON.parse(r.stdout) as {
    errors?: { code: string }[];
    issues?: { code: string }[];
    results?: { error_code?: string }[];
  };
  return [...(out.errors ?? []), ...(out.issues ?? [])]
    .map((e) => e.code)
    .concat((out.results ?? []).flatMap((x) => (x.error_code ? [x.error_code] : [])));
}

/** How each code is met: a directory and the command that fails there. */
const cases: Record<Exclude<ErrorCode, keyof typeof notByRun>, () => Promise<CliRun>> = {
  E_USAGE: async () => run(setup(), ['plan', '.']), // no --base-url
  E_INPUT: async () => run(testdir({}), ['plan', '.', '--base-url', emu.url]), // no documents
  E_VALIDATION: async () =>
    run(setup({ 'b.yaml': { kind: 'Offer', name: 'b', spec: { project_id: 'p', priority: 'high' } } }), [
      'plan',
      '.',
      '--base-url',
      emu.url,
    ]),
  // A rename that would also change which offer it is: the state has Offer/old as another id.
  E_PLAN: async () => {
    const dir = setup({ 'a.yaml': offer('old') });
    expect((await apply(dir)).code).toBe(0);
    writeFileSync(
      join(dir, 'a.yaml'),
      JSON.stringify({
        kind: 'Offer',
        name: 'o',
        id: 'off_live',
        moved_from: 'Offer/old',
        spec: { project_id: 'p', name: 'Live' },
      }),
    );
    return run(dir, ['plan', '.', '--base-url', emu.url]);
  },
  E_PLAN_INVALID: async () =>
    run(setup({ 'plan.json': '{not json' }), ['apply', '.', '--base-url', emu.url, '--plan', 'plan.json', '--yes']),
  E_PLAN_STALE: async () => {
    const dir = setup();
    expect((await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'b.yaml'), JSON.stringify(offer('b')));
    return run(dir, ['apply', '.', '--base-url', emu.url, '--plan', 'plan.json', '--yes']);
  },
  E_DENIED: async () =>
    run(setup({ 'rules/r.yaml': '- name: no-creates\n  expression: change.action != "create"\n' }), [
      'apply',
      '.',
      '--base-url',
      emu.url,
      '--yes',
    ]),
  // A deny window open all day, every day: the create is held, skipped with its code.
  E_WINDOW: async () =>
    run(
      setup({
        'tapedeck.yaml':
          'version: 1\nname: codes\nwindows:\n  - name: freeze\n    kind: deny\n    schedule: "0 0 * * *"\n    duration: 1d\n',
      }),
      ['apply', '.', '--base-url', emu.url, '--yes'],
    ),
  E_LOCKED: async () => {
    const dir = setup();
    mkdirSync(join(dir, '.tapedeck'));
    writeFileSync(join(dir, '.tapedeck/default.state.json.lock'), ''); // a taker writing it right now
    return run(dir, ['apply', '.', '--base-url', emu.url, '--yes']);
  },
  // A copy of the state pushed back after an apply moved it on.
  E_STATE_CONFLICT: async () => {
    const dir = setup();
    expect((await apply(dir)).code).toBe(0);
    copyFileSync(join(dir, '.tapedeck/default.state.json'), join(dir, 'old.json'));
    writeFileSync(join(dir, 'b.yaml'), JSON.stringify(offer('b')));
    expect((await apply(dir)).code).toBe(0);
    return run(dir, ['state', 'push', 'old.json', '.']);
  },
  E_STATE_MISMATCH: async () => {
    const dir = setup();
    expect((await apply(dir)).code).toBe(0);
    writeFileSync(join(dir, 'tapedeck.yaml'), 'version: 1\nname: another\n');
    return run(dir, ['plan', '.', '--base-url', emu.url]);
  },
  E_STATE_INVALID: async () => {
    const dir = setup({ '.tapedeck/default.state.json': '{torn' });
    return run(dir, ['plan', '.', '--base-url', emu.url]);
  },
  E_STATE_BACKEND: async () => {
    const dir = setup({ 'state/x.json': 'not a directory' });
    return run(dir, ['apply', '.', '--base-url', emu.url, '--yes', '--state', 'state/x.json/default.json']);
  },
  E_NOT_FOUND: async () => run(setup(), ['import', 'Offer/o', 'off_missing', '.', '--base-url', emu.url]),
  // Two environments of one directory on one platform, the second given the first's state: both would manage it.
  E_OWNED: async () => {
    const envs = `version: 1\nname: codes\nenvironments:\n  a:\n    base_url: ${emu.url}\n  b:\n    base_url: ${emu.url}\n`;
    const dir = setup({ 'tapedeck.yaml': envs });
    expect((await runCli(['apply', '.', '--env', 'a', '--yes'], { cwd: dir })).code).toBe(0);
    const push = ['state', 'push', '.tapedeck/a.state.json', '.', '--env', 'b', '--force'];
    expect((await runCli(push, { cwd: dir })).code).toBe(0);
    return run(dir, ['apply', '.', '--env', 'b', '--yes']);
  },
  E_DUPLICATE: async () => run(setup({ 'a.yaml': offer('o', { name: 'Live' }) }), ['plan', '.', '--base-url', emu.url]),
  E_AUTH: async () => run(setup(), ['plan', '.', '--base-url', emu.url], { TAPEDECK_TOKEN: 'wrong' }),
  // An answer that never ends, cut at the run's --deadline (its smallest, 1 s).
  E_DEADLINE: async () => {
    const server = await hostileServer(undefined, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"offer": {');
      return true;
    });
    try {
      const dir = setup({ 'a.yaml': { kind: 'Offer', name: 'o', id: 'off_1', spec: { project_id: 'p', name: 'O' } } });
      return await run(dir, ['plan', '.', '--base-url', server.url, '--deadline', '1']);
    } finally {
      await server.close();
    }
  },
  E_NETWORK: async () => run(setup(), ['plan', '.', '--base-url', 'http://127.0.0.1:1']),
  // Three reads at once against one request a second: two are refused (429), and nothing retries.
  E_API: async () =>
    run(
      setup({
        'a.yaml': ['1', '2', '3'].map((i) => ({
          kind: 'Offer',
          name: `o${i}`,
          id: `off_${i}`,
          spec: { project_id: 'p', name: i },
        })),
      }),
      ['plan', '.', '--base-url', limited.url, '--retries', '0'],
    ),
  // A create that gets 503: its outcome is unknown (it may have been made), and the offer naming it is not sent.
  E_OUTCOME_UNKNOWN: async () => run(setup(), ['apply', '.', '--base-url', await faulty(), '--yes', '--retries', '0']),
  E_NOT_SENT: async () => {
    const dir = setup({ 'b.yaml': offer('b', { billing_partner_offer_id: '${Offer/o.id}' }) });
    return run(dir, ['apply', '.', '--base-url', await faulty(), '--yes', '--retries', '0']);
  },
};

/** Codes no failing run gives, and why. */
const notByRun = {
  E_INTERNAL: 'a bug by definition: any error that is not a TapedeckError (test/unit/error-codes.test.ts)',
  E_GIT: "the agent's alone, in its JSON log line and /status (test/e2e/agent-service.test.ts: a missing branch)",
} as const;

describe('each code comes from a real failing run, in its JSON output', () => {
  it('every code is met here or said why not', () => {
    expect(Object.keys({ ...cases, ...notByRun }).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it.each(Object.entries(cases))('%s', async (code, failing) => {
    const r = await failing();
    expect(r.code, r.stderr).toBe(1);
    expect(codes(r), r.stdout).toContain(code);
    // People still read one line each on stderr, never a stack trace.
    expect(r.stderr).not.toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
  });
});

describe('a secret in an error', () => {
  it('never reaches the JSON output: a server that echoes the token in its refusal', async () => {
    const token = 'tok-echoed-7f3a';
    const server = await hostileServer(undefined, (req, res) => {
      req.resume();
      const message = `token ${req.headers.authorization} is not allowed here`;
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ code: 'invalid_argument', message }));
      return true;
    });
    try {
      const dir = setup({ 'a.yaml': { kind: 'Offer', name: 'o', id: 'off_1', spec: { project_id: 'p', name: 'O' } } });
      const r = await run(dir, ['plan', '.', '--base-url', server.url], { TAPEDECK_TOKEN: token });
      expect(r.code).toBe(1);
      expect(codes(r)).toEqual(['E_API']);
      expect(JSON.parse(r.stdout).errors[0].message).toMatch(/^Offer\/o: GET \S+: 400 invalid_argument: token /);
      expect(r.stdout + r.stderr).not.toContain(token);
    } finally {
      await server.close();
    }
  });
});
