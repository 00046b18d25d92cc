// A whole project stood up in new environments: a production project holding every kind, with references between
// them, is exported with --portable, then applied to an empty project on a second emulator and on a third, each with
// its own variables and state. Everything exists there, every reference names the new project's ids (none the old
// ones), and a second plan is empty.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/tmp.js';

const seedFile = join(import.meta.dirname, '../../examples/seeds/portable-production.yaml');
const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

/** Resources without a list are named to the export (as a user would, with --id). */
const ids = [
  'Policy=org_acme/organization',
  'Policy=proj_prod/proj_prod/project',
  'Policy=evt_final/proj_prod/event',
  'ActionConfiguration=at_goal',
  'Vod=vod_replay',
  'RtmpIngest=ing_main',
  'Banner=ban_home',
  'StandingPhase=sp_league',
];

const all = (emu: Emulator, col: string) => [...emu.store.collections.get(col)!.values()] as any[];

/** Every string in a value, and each part of those with "/" in them (a policy's key). */
function strings(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') for (const s of [v, ...v.split('/')]) out.add(s);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      strings(k, out);
      strings(x, out);
    }
  }
  return out;
}

async function exportProduction() {
  const prod = await startEmulator({ port: 0, seed: { text: readFileSync(seedFile, 'utf8'), file: seedFile } });
  running.push(prod);
  const root = tempDir();
  const dir = join(root, 'setup');
  const exported = await runCli(
    ['export', dir, '--portable', '--base-url', prod.url, '--project', 'proj_prod', ...ids.flatMap((i) => ['--id', i])],
    { cwd: root },
  );
  expect(exported.code, exported.stderr).toBe(0);
  return {
    prod,
    root,
    dir,
    vars: parse(readFileSync(join(dir, 'vars.example.yaml'), 'utf8')) as Record<string, string>,
  };
}

describe('export --portable', () => {
  it('writes documents with no server ids of creatable kinds and every tie to the project as a variable or reference', async () => {
    const { prod, root, dir, vars } = await exportProduction();
    // What the new environment must provide, with production's values.
    expect(vars).toEqual({
      project: 'proj_prod',
      organization: 'org_acme',
      asset_final_thumb: 'asset_final_thumb',
      asset_replay: 'asset_replay',
      video_vid_road: 'vid_road',
      entity_team_ajax: 'team_ajax',
      annotation_type_at_goal: 'at_goal',
      rtmp_ingest_main_camera: 'ing_main',
      vod_final_replay: 'vod_replay',
    });
    const text = ['offer', 'policy', 'content-type', 'event']
      .map((f) => readFileSync(join(dir, `${f}.yaml`), 'utf8'))
      .join('---\n');
    const docs = text.split(/^---\n/m).map((t) => parse(t));
    const byAddress = new Map(docs.map((d) => [`${d.kind}/${d.name}`, d]));
    expect(byAddress.get('Offer/final-pass').spec.target).toEqual({
      event_ids: ['${Event/the-final.id}'],
      creative_work_ids: ['${CreativeWork/road-to-the-final.id}'],
    });
    expect(byAddress.get('Event/the-final').spec).toMatchObject({
      project_id: '${var.project}',
      type_id: '${ContentType/match.id}',
      thumbnail_asset_id: '${var.asset_final_thumb}',
    });
    expect(byAddress.get('ContentType/match').spec.field_groups[0].fields[0].validations.link_type.type_ids).toEqual([
      '${ContentType/documentary.id}',
    ]);
    // Policies are named by what their keys name, not by production's ids.
    expect(
      ['Policy/organization', 'Policy/project', 'Policy/the-final-project-event'].map(
        (a) => byAddress.get(a)?.spec.resource_key,
      ),
    ).toEqual([
      '${var.organization}/organization',
      '${var.project}/${var.project}/project',
      '${Event/the-final.id}/${var.project}/event',
    ]);
    expect(docs.filter((d) => d.id !== undefined)).toEqual([]);
    // With production's own values the documents describe production as it is: nothing to change.
    const again = await runCli(
      ['plan', dir, '--base-url', prod.url, '--var-file', join(dir, 'vars.example.yaml'), '--detailed-exitcode'],
      { cwd: root },
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('applies to empty projects in two other environments, each ending with its own ids and an empty second plan', async () => {
    const { prod, root, dir, vars } = await exportProduction();
    const before = new Set([
      ...Object.values(vars),
      ...strings([...prod.store.collections.values()].map((c) => [...c.keys()])),
    ]);
    for (const env of ['staging', 'qa']) {
      // The new environment's values: its own project and organization, and its own ingest and VOD (which
      // tapedeck cannot create: they exist there already).
      const mine = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, `${env}_${v}`]));
      const emu = await emulator({
        rtmp_ingests: [
          {
            id: mine.rtmp_ingest_main_camera,
            project_id: mine.project,
            region: 'REGION_EU',
            key: `live_sk_${env}_0123456789`,
            name: 'Camera',
          },
        ],
        vods: [
          {
            id: mine.vod_final_replay,
            project_id: mine.project,
            name: 'Replay',
            region: 'REGION_EU',
            state: 'STATE_READY',
          },
        ],
      });
      running.push(emu);
      const varFile = join(root, `${env}.vars.yaml`);
      writeFileSync(varFile, stringify(mine));
      const flags = [dir, '--base-url', emu.url, '--var-file', varFile, '--state', join(root, `${env}.state.json`)];
      const apply = await runCli(['apply', ...flags, '--yes'], { cwd: root });
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);

      // Every resource of production exists here, once.
      for (const [col, items] of prod.store.collections)
        expect([col, emu.store.collections.get(col)!.size]).toEqual([col, items.size]);
      // No value here names anything of production's.
      const leaked = [...strings([...emu.store.collections.values()].map((c) => [...c.entries()]))].filter((s) =>
        before.has(s),
      );
      expect(leaked.filter((s) => !['event', 'project', 'organization'].includes(s))).toEqual([]);
      // Every reference names this project's resources.
      const [event] = all(emu, 'events');
      const [work] = all(emu, 'creative_works');
      const type = (base: string) => all(emu, 'content_types').find((t) => t.base_type === base).id;
      expect(event).toMatchObject({
        project_id: mine.project,
        type_id: type('BASE_TYPE_EVENT'),
        thumbnail_asset_id: mine.asset_final_thumb,
      });
      expect(work.type_id).toBe(type('BASE_TYPE_CREATIVE_WORK'));
      expect(all(emu, 'offers')[0].target).toMatchObject({ event_ids: [event.id], creative_work_ids: [work.id] });
      expect(all(emu, 'video_protection_rulesets')[0].target.event_ids).toEqual([event.id]);
      expect(
        all(emu, 'content_types').find((t) => t.base_type === 'BASE_TYPE_EVENT').field_groups[0].fields[0].validations
          .link_type.type_ids,
      ).toEqual([type('BASE_TYPE_CREATIVE_WORK')]);
      expect([...emu.store.collections.get('policies')!.keys()].sort()).toEqual(
        [
          `${event.id}/${mine.project}/event`,
          `${mine.organization}/organization`,
          `${mine.project}/${mine.project}/project`,
        ].sort(),
      );
      expect(all(emu, 'vods')[0].asset_id).toBe(mine.asset_replay);

      const second = await runCli(['plan', ...flags, '--detailed-exitcode'], { cwd: root });
      expect(second.code, second.stdout + second.stderr).toBe(0);
    }
  });

  it('refuses a directory that already holds documents, and writes nothing', async () => {
    const emu = await emulator({ offers: [{ id: 'o1', project_id: 'p', name: 'A' }] });
    running.push(emu);
    const root = tempDir();
    writeFileSync(join(root, 'mine.yaml'), stringify({ kind: 'Offer', name: 'a', id: 'o1', spec: { name: 'A' } }));
    const r = await runCli(['export', root, '--portable', '--base-url', emu.url], { cwd: root });
    expect([r.code, r.stderr.trim()]).toEqual([
      1,
      'error: export --portable writes a whole project into a directory of its own; . already holds documents or a vars.example.yaml',
    ]);
    expect(emu.calls()).toEqual([]);
  });
});

describe('export of content types, which the API reads and lists only within a project and base type', () => {
  const seed = {
    content_types: [
      { id: 'ct1', project_id: 'p', base_type: 'BASE_TYPE_EVENT', name: 'Match' },
      { id: 'ct2', project_id: 'p', base_type: 'BASE_TYPE_ENTITY', name: 'Team' },
      { id: 'ct3', project_id: 'q', base_type: 'BASE_TYPE_EVENT', name: 'Other' },
    ],
  };

  it('lists each base type, reads one the state knows with its base type and project, and finds --id through the lists', async () => {
    const emu = await emulator(seed);
    running.push(emu);
    const root = tempDir();
    mkdirSync(join(root, '.tapedeck'));
    writeFileSync(
      join(root, '.tapedeck/default.state.json'),
      JSON.stringify({
        format_version: 1,
        resources: {
          'ContentType/known': {
            kind: 'ContentType',
            id: 'ct3',
            fields: { project_id: 'q', base_type: 'BASE_TYPE_EVENT', name: 'Other' },
          },
        },
      }),
    );
    const r = await runCli(['export', root, '--base-url', emu.url, '--project', 'p', '--id', 'ContentType=ct1'], {
      cwd: root,
    });
    expect(r.code, r.stderr).toBe(0);
    const names = readFileSync(join(root, 'content-type.yaml'), 'utf8')
      .split(/^---\n/m)
      .map((t) => parse(t).name)
      .sort();
    expect(names).toEqual(['known', 'match', 'team']);
    expect(
      emu
        .calls()
        .filter((c) => c.path.startsWith('/cms/types/v1/'))
        .map((c) => c.path),
    ).toEqual(['/cms/types/v1/ct3?base_type=BASE_TYPE_EVENT&project_id=q']);
  });

  it('an --id the lists do not hold (another project) is an error naming what its read needs; nothing is written', async () => {
    const emu = await emulator(seed);
    running.push(emu);
    const root = tempDir();
    const r = await runCli(
      ['export', join(root, 'out'), '--base-url', emu.url, '--project', 'p', '--id', 'ContentType=ct3'],
      { cwd: root },
    );
    expect([r.code, r.stderr]).toEqual([
      1,
      'error: ContentType ct3 is not in the lists of project p, and reading it needs base_type and project_id; nothing was written\n',
    ]);
    expect(readdirSync(join(root, 'out'))).toEqual(['.tapedeck']);
    expect(readdirSync(join(root, 'out/.tapedeck'))).toEqual([]);
  });
});
