// The portable rewrite of exported documents, as a table: what each marked id becomes.
import { describe, expect, it } from 'vitest';
import { makePortable, varsExample } from '../../src/adopt/portable.js';
import type { ExportedDoc } from '../../src/adopt/export.js';
import { defaultRegistry } from '../../src/kinds/registry.js';

const doc = (kind: string, name: string, spec: Record<string, unknown>, id?: string): ExportedDoc => ({
  kind,
  name,
  ...(id ? { id } : {}),
  spec: spec as ExportedDoc['spec'],
});

const cases: Array<{
  what: string;
  docs: ExportedDoc[];
  project?: string;
  specs: unknown[];
  vars: Record<string, string>;
  notes?: RegExp[];
}> = [
  {
    what: 'an id of an exported resource is a reference; one not exported is a variable of its kind',
    docs: [
      doc('Event', 'final', { project_id: 'p1' }, 'e1'),
      doc('Offer', 'pass', { project_id: 'p1', target: { event_ids: ['e1', 'e9'] } }, 'o1'),
    ],
    specs: [
      { project_id: '${var.project}' },
      { project_id: '${var.project}', target: { event_ids: ['${Event/final.id}', '${var.event_e9}'] } },
    ],
    vars: { project: 'p1', event_e9: 'e9' },
  },
  {
    what: 'a second project is numbered; --project is named first',
    project: 'p2',
    docs: [doc('Banner', 'a', { project_id: 'p1' }, 'b1'), doc('Banner', 'b', { project_id: 'p2' }, 'b2')],
    specs: [{ project_id: '${var.project_2}' }, { project_id: '${var.project}' }],
    vars: { project_2: 'p1', project: 'p2' },
  },
  {
    what: 'a content type linking to itself keeps a variable (a cycle could never be applied)',
    docs: [
      doc(
        'ContentType',
        'self',
        {
          project_id: 'p',
          field_groups: [{ fields: [{ id: 'f', validations: { link_type: { type_ids: ['ct1'] } } }] }],
        },
        'ct1',
      ),
    ],
    specs: [
      {
        project_id: '${var.project}',
        field_groups: [
          { fields: [{ id: 'f', validations: { link_type: { type_ids: ['${var.content_type_ct1}'] } } }] },
        ],
      },
    ],
    vars: { project: 'p', content_type_ct1: 'ct1' },
    notes: [
      /^ContentType\/self spec.field_groups.fields.validations.link_type.type_ids refers to ContentType\/self, which refers back to it/,
    ],
  },
  {
    what: 'each value of a map of asset ids; the same value is one variable; text with a $ stays as written',
    docs: [
      doc(
        'Offer',
        'o',
        {
          localized_logo_asset_id: { en: 'asset_1', nl: 'asset_1', de: 'x' },
          name: 'a',
          target: { event_ids: ['$${Event/x.id}'] },
        },
        'o1',
      ),
    ],
    specs: [
      {
        localized_logo_asset_id: { en: '${var.asset_1}', nl: '${var.asset_1}', de: '${var.asset_x}' },
        name: 'a',
        target: { event_ids: ['$${Event/x.id}'] },
      },
    ],
    vars: { asset_1: 'asset_1', asset_x: 'x' },
  },
  {
    what: 'a key part by part; a key of no known form is a variable, said so',
    docs: [
      doc('Policy', 'org', { resource_key: 'o1/organization' }),
      doc('Policy', 'odd', { resource_key: 'a/b/c/d' }),
    ],
    specs: [{ resource_key: '${var.organization}/organization' }, { resource_key: '${var.resource_a_b_c_d}' }],
    vars: { organization: 'o1', resource_a_b_c_d: 'a/b/c/d' },
    notes: [/^Policy\/odd spec.resource_key: "a\/b\/c\/d" is not a key of a known form/],
  },
];

describe('makePortable', () => {
  it.each(cases)('$what', ({ docs, project, specs, vars, notes }) => {
    const out = makePortable(defaultRegistry, docs, project);
    expect(out.docs.map((d) => d.spec)).toEqual(specs);
    expect(Object.fromEntries(out.vars.map((v) => [v.name, v.value]))).toEqual(vars);
    expect(out.notes.length).toBe(notes?.length ?? 0);
    notes?.forEach((n, i) => expect(out.notes[i]).toMatch(n));
  });

  it('drops the id of a kind tapedeck creates, and names the one of a kind it cannot create by a variable', () => {
    const out = makePortable(defaultRegistry, [
      doc('Event', 'final', {}, 'e1'),
      doc('RtmpIngest', 'main camera', { name: 'Main' }, 'ing_1'),
    ]);
    expect(out.docs).toEqual([
      { kind: 'Event', name: 'final', spec: {} },
      { kind: 'RtmpIngest', name: 'main camera', id: '${var.rtmp_ingest_main_camera}', spec: { name: 'Main' } },
    ]);
    const text = varsExample(out.vars, 'http://x');
    expect(text).toContain(
      '# RtmpIngest id (tapedeck cannot create a RtmpIngest: the id of the new environment\'s own); used by RtmpIngest/main camera id\nrtmp_ingest_main_camera: "ing_1"\n',
    );
  });
});
