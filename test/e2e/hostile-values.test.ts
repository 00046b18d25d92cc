// Values that used to pass validation and then went out wrong: int64s beyond 2^53 rounded on the way to the wire,
// timestamps the API refuses, an empty message that managed nothing. The refusals themselves are corpus cases
// (test/fixtures/bad/070-*.yaml on); this file checks what is sent, and what is accepted, against the emulator.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** `plan --json`, then `apply --yes`: the body the plan holds, and the offer as the platform has it after. */
async function planAndApply(dir: string, ...extra: string[]) {
  const planned = await runCli(['plan', ...against(emu!.url, dir), '--json', ...extra], { cwd: dir });
  expect(planned.stderr).toBe('');
  const applied = await runCli(['apply', ...against(emu!.url, dir), '--yes', ...extra], { cwd: dir });
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  return {
    body: JSON.parse(planned.stdout).changes[0].request.body,
    live: (await call(emu!, 'GET', '/monetization/offers/v1/o1')).body.offer,
  };
}

const offer = (priority: string, extra = '') =>
  `kind: Offer\nname: o\nid: o1\nspec:\n  priority: ${priority}\n${extra}`;
/** A block scalar: the fast reader leaves the file to `yaml`, so both readers are checked. */
const viaYaml = '  name: |\n    read by the yaml library\n';

describe('int64 values are read from the source text exactly', () => {
  it.each([
    ['2^53 + 1', '9007199254740993', '9007199254740993', ''],
    ['2^53 + 1, in a file the yaml library reads', '9007199254740993', '9007199254740993', viaYaml],
    ['the int64 maximum', '9223372036854775807', '9223372036854775807', ''],
    ['the int64 minimum', '-9223372036854775808', '-9223372036854775808', viaYaml],
    ['hexadecimal', '0x20000000000001', '9007199254740993', ''],
    ['a decimal string', '"9007199254740993"', '9007199254740993', ''],
    ['a small integer', '10', '10', ''],
  ])('%s: priority %s is sent as "%s"', async (_, written, sent, extra) => {
    emu = await emulator({ offers: [{ id: 'o1', project_id: 'p', priority: '1' }] });
    const dir = testdir({ 'o.yaml': offer(written, extra) });
    const { body, live } = await planAndApply(dir);
    expect(body.offer.priority).toBe(sent);
    expect(live.priority).toBe(sent);
  });

  it.each([
    ['--var', { 'o.yaml': offer('${var.big}') }, ['--var', 'big=9007199254740993']],
    [
      '--var-file',
      { 'o.yaml': offer('${var.big}'), '.vars.yaml': 'big: 9007199254740993\n' },
      ['--var-file', '.vars.yaml'],
    ],
    [
      "the environment's vars",
      {
        'o.yaml': offer('${var.big}'),
        'tapedeck.yaml': 'version: 1\nenvironments:\n  prod:\n    vars: { big: 9007199254740993 }\n',
      },
      ['--env', 'prod'],
    ],
  ])('${var.big} from %s keeps every digit', async (_, files, flags) => {
    emu = await emulator({ offers: [{ id: 'o1', project_id: 'p', priority: '1' }] });
    const dir = testdir(files);
    const { body, live } = await planAndApply(dir, ...flags);
    expect(body.offer.priority).toBe('9007199254740993');
    expect(live.priority).toBe('9007199254740993');
  });
});

describe('timestamps: RFC 3339 as the API reads it', () => {
  it.each([
    ['2026-01-01T10:00:00Z'],
    ['2026-01-01T10:00:00.123456789Z'],
    ['2026-01-01T12:00:00+02:00'],
    ['2026-01-01T05:00:00.5-05:00'],
    ['0001-01-01T00:00:00Z'],
    ['9999-12-31T23:59:59.999999999Z'],
  ])('%s is accepted and sent', async (ts) => {
    emu = await emulator({ events: [{ id: 'e1', project_id: 'p', title: 'T' }] });
    const dir = testdir({ 'e.yaml': `kind: Event\nname: e\nid: e1\nspec:\n  start_time: "${ts}"\n` });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout).changes[0].request.body.event_update.start_time).toBe(ts);
  });
});

describe('an empty message is unset, so it clears the message, as null does', () => {
  it.each([
    ['physical_location: {}', { physical_location: {} }, 'physical_location', {}],
    [
      'physical_location: { coordinates: {} }',
      { physical_location: { coordinates: {} } },
      'physical_location.coordinates',
      { city: 'Lyon' },
    ],
  ])('%s', async (_, spec, mask, after: { city?: string }) => {
    emu = await emulator({
      events: [
        {
          id: 'e1',
          project_id: 'p',
          title: 'T',
          physical_location: { city: 'Lyon', coordinates: { latitude: 1, longitude: 2 } },
        },
      ],
    });
    const dir = testdir({ 'e.yaml': { kind: 'Event', name: 'e', id: 'e1', spec } });
    const planned = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(JSON.parse(planned.stdout).changes[0]).toMatchObject({ action: 'update', update_mask: [mask] });
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    const live = (await call(emu, 'GET', '/cms/events/v1/e1')).body.event;
    expect({
      city: live.physical_location?.city ?? '',
      coordinates: live.physical_location?.coordinates ?? null,
    }).toEqual({ city: after.city ?? '', coordinates: null });
    const again = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir });
    expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('No changes.') });
  });
});
