// One owner per live resource (issue 42.5): two configurations that both record one live id rewrite each other's
// changes at every apply. With a database state every configuration and environment of the schema writes who
// manages each id (the owners table, with the state), and an apply or import that would manage another's id is
// refused before anything is sent, naming the owner; state forget or a release hands it over. With file states the
// other environments' states of the same directory are looked at.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { write } from '../helpers/lifecycle.js';
import { postgresForFile } from '../helpers/postgres.js';
import { fresh } from '../helpers/postgres-state.js';

const pg = (await postgresForFile('ownership tests (database)'))!;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const offer = (name: string, extra: object = {}) => ({
  kind: 'Offer',
  name,
  ...extra,
  spec: { project_id: 'p', name: 'Season pass' },
});
const offerIds = () => [...emu!.store.collections.get('offers')!.keys()];

describe.skipIf(!pg)('with a database state', () => {
  it('an apply or import of an id another configuration owns is refused naming it; state forget and a release hand it over', async () => {
    emu = await emulator();
    const schema = fresh();
    const env = { TAPEDECK_STATE_URL: pg.url(schema) };
    const shop = testdir({ 'tapedeck.yaml': 'version: 1\nname: shop\n', 'a.yaml': [offer('season')] });
    const cli = (dir: string, args: string[]) =>
      runCli([args[0], ...args.slice(1), '--base-url', emu!.url], { cwd: dir, env });
    expect((await cli(shop, ['apply', '.', '--yes'])).code).toBe(0);
    const [id] = offerIds();
    const owners = () => pg.sql(`SELECT kind, id, configuration, environment, address FROM "${schema}".owners`);
    expect(await owners()).toEqual([
      { kind: 'Offer', id, configuration: 'shop', environment: 'default', address: 'Offer/season' },
    ]);
    // A second directory adopts it (import) or names it (id): refused before anything is sent, naming the owner.
    const outlet = testdir({ 'tapedeck.yaml': 'version: 1\nname: outlet\n', 'a.yaml': [offer('pass')] });
    const writes = emu.writes().length;
    const imported = await cli(outlet, ['import', 'Offer/pass', id, '.']);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(`is managed by configuration shop, environment default as Offer/season`);
    write(outlet, [offer('pass', { id })]);
    const refused = await cli(outlet, ['apply', '.', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `Offer/pass: Offer ${id} is managed by configuration shop, environment default as Offer/season. One live resource has one owner`,
    );
    expect(refused.stderr).toContain('`tapedeck state forget Offer/season` there');
    expect(emu.writes().length).toBe(writes);
    // shop lets it go (state forget): outlet takes it.
    expect((await cli(shop, ['state', 'forget', 'Offer/season', '.'])).code).toBe(0);
    expect(await owners()).toEqual([]);
    expect((await cli(outlet, ['apply', '.', '--yes'])).code).toBe(0);
    expect(await owners()).toMatchObject([{ id, configuration: 'outlet', address: 'Offer/pass' }]);
    // outlet releases it (its document removed): shop takes it back by id.
    write(outlet, [{ kind: 'Offer', name: 'other', spec: { project_id: 'p', name: 'Other' } }]);
    const released = await cli(outlet, ['apply', '.', '--yes']);
    expect(released.code, released.stderr).toBe(0);
    expect((await owners()).map((o) => o.id)).not.toContain(id);
    write(shop, [offer('season', { id })]);
    expect((await cli(shop, ['apply', '.', '--yes'])).code).toBe(0);
    expect((await owners()).find((o) => o.id === id)).toMatchObject({ configuration: 'shop' });
    expect(offerIds().filter((o) => o === id)).toHaveLength(1);
  });
});

describe('with file states', () => {
  it("an import of an id another environment's state of the directory manages is refused naming it, until that one forgets it", async () => {
    emu = await emulator();
    const project = `version: 1\nname: shop\nenvironments:\n  production:\n    base_url: ${emu.url}\n  staging:\n    base_url: ${emu.url}\n`;
    const dir = testdir({ 'tapedeck.yaml': project, 'a.yaml': [offer('season')] });
    const cli = (args: string[]) => runCli(args, { cwd: dir });
    expect((await cli(['apply', '.', '--env', 'production', '--yes'])).code).toBe(0);
    const [id] = offerIds();
    const refused = await cli(['import', 'Offer/season', id, '.', '--env', 'staging']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `Offer/season: Offer ${id} is managed by environment production (state .tapedeck/production.state.json) as Offer/season`,
    );
    expect((await cli(['state', 'forget', 'Offer/season', '.', '--env', 'production'])).code).toBe(0);
    expect((await cli(['import', 'Offer/season', id, '.', '--env', 'staging'])).code).toBe(0);
    // The other way now: production names it by id, and staging owns it.
    write(dir, [offer('season', { id })]);
    const apply = await cli(['apply', '.', '--env', 'production', '--yes']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('is managed by environment staging (state .tapedeck/staging.state.json)');
    expect(offerIds()).toEqual([id]);
  });
});
