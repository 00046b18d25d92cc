// The platform rules the emulator enforces, and its error paths.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator;
afterEach(() => emu?.close());

describe('policy etag', () => {
  it('a stale etag fails with 409 aborted; every write makes a new etag', async () => {
    emu = await emulator({ policies: [{ resource_key: 'p1/p1/project', policy: { bindings: [] }, etag: 'e0' }] });
    const path = '/iam/auth/v1/policies/p1/p1/project';
    const stale = await call(emu, 'PUT', path, {
      resource_key: 'p1/p1/project',
      policy: { bindings: [] },
      etag: 'old',
    });
    expect(stale).toMatchObject({ status: 409, body: { code: 'aborted' } });
    const ok = await call(emu, 'PUT', path, {
      resource_key: 'p1/p1/project',
      policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] },
      etag: 'e0',
    });
    expect(ok).toMatchObject({ status: 200, body: {} });
    const { body } = await call(emu, 'GET', path);
    expect(body.etag).not.toBe('e0');
    expect(body.policy.bindings[0]).toEqual({ role_id: 'owner', account_ids: ['a'], all_organization_accounts: false });
    const again = await call(emu, 'PUT', path, { resource_key: 'p1/p1/project', policy: { bindings: [] }, etag: 'e0' });
    expect(again.status).toBe(409);
  });

  it('a PUT without etag creates or replaces; malformed keys and mismatched bodies are 400', async () => {
    emu = await emulator();
    expect((await call(emu, 'PUT', '/iam/auth/v1/policies/o1/organization', { policy: { bindings: [] } })).status).toBe(
      200,
    );
    expect((await call(emu, 'GET', '/iam/auth/v1/policies/o1/organization')).status).toBe(200);
    expect((await call(emu, 'PUT', '/iam/auth/v1/policies/o1/x/y/z', { policy: { bindings: [] } })).status).toBe(400);
    expect(
      (await call(emu, 'PUT', '/iam/auth/v1/policies/o1/organization', { resource_key: 'o2/organization', policy: {} }))
        .status,
    ).toBe(400);
    expect(
      (await call(emu, 'PUT', '/iam/auth/v1/policies/o1/organization', { resource_key: 'o1/organization' })).status,
    ).toBe(400);
  });

  it('a seeded policy without an etag gets one', async () => {
    emu = await emulator({ policies: [{ resource_key: 'o1/organization', policy: { bindings: [] } }] });
    expect((await call(emu, 'GET', '/iam/auth/v1/policies/o1/organization')).body.etag).toMatch(/./);
  });
});

describe('one default configuration per project and type', () => {
  const cfg = { project_id: 'p1', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS' };
  it('on create and on update: 412 failed_precondition naming the default', async () => {
    emu = await emulator({
      configurations: [
        { id: 'cfg1', name: 'A', default: true, ...cfg },
        { id: 'cfg2', name: 'B', ...cfg },
      ],
    });
    const create = await call(emu, 'POST', '/streaming/configurations/v1', { name: 'C', default: true, ...cfg });
    expect(create).toMatchObject({
      status: 412,
      body: { code: 'failed_precondition', message: expect.stringContaining('cfg1') },
    });
    const update = await call(emu, 'PATCH', '/streaming/configurations/v1/cfg2', {
      configuration: { default: true },
      update_mask: 'default',
    });
    expect(update.status).toBe(412);
    expect((await call(emu, 'GET', '/streaming/configurations/v1/cfg2')).body.configuration.default).toBe(false);
    const otherType = await call(emu, 'POST', '/streaming/configurations/v1', {
      ...cfg,
      type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING',
      name: 'T',
      default: true,
    });
    const otherProject = await call(emu, 'POST', '/streaming/configurations/v1', {
      ...cfg,
      project_id: 'p2',
      name: 'P',
      default: true,
    });
    expect([otherType.status, otherProject.status]).toEqual([200, 200]);
  });
});

describe('action configuration references', () => {
  const path = '/annotations/types/v1/at1/action_configuration';
  it.each([[{ a: { x: '$b.out' }, b: {} }], [{ a: { x: '$secret.api_key' } }]])(
    '%j -> 200, stored',
    async (configuration) => {
      emu = await emulator();
      expect((await call(emu, 'POST', path, { annotation_type_id: 'at1', configuration })).status).toBe(200);
      expect((await call(emu, 'GET', path)).body.configuration).toEqual(configuration);
    },
  );

  it.each([
    [{ a: { x: '$missing.out' } }, 'not an action of this configuration'],
    [{ a: { x: '$a.out' } }, 'its own output'],
    [{ a: { x: '$b.out' }, b: { y: ['$c.o'] }, c: { z: { deep: '$a.o' } } }, 'reference cycle: a -> b -> c -> a'],
  ])('%j -> 400 %s', async (configuration, message) => {
    emu = await emulator();
    const res = await call(emu, 'POST', path, { annotation_type_id: 'at1', configuration });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
  });

  it('replaces the whole configuration and needs one', async () => {
    emu = await emulator({
      action_configurations: [
        { annotation_type_id: 'at1', configuration: { a: {} }, conditions: [{ confidence_threshold: 0.5 }] },
      ],
    });
    await call(emu, 'POST', path, { annotation_type_id: 'at1', configuration: { b: {} } });
    expect((await call(emu, 'GET', path)).body).toEqual({ configuration: { b: {} }, conditions: [] });
    expect((await call(emu, 'POST', path, { annotation_type_id: 'at1' })).status).toBe(400);
    expect((await call(emu, 'POST', path, { annotation_type_id: 'at2', configuration: {} })).status).toBe(400);
  });
});

describe('HTTP errors', () => {
  it('missing or wrong token is 401; --token is repeatable', async () => {
    emu = await emulator({}, { tokens: ['t1', 't2'] });
    expect((await call(emu, 'GET', '/cms/events/v1', undefined, '')).status).toBe(401);
    expect(await call(emu, 'GET', '/cms/events/v1', undefined, 'dev-token')).toMatchObject({
      status: 401,
      body: { code: 'unauthenticated' },
    });
    expect((await call(emu, 'GET', '/cms/events/v1', undefined, 't2')).status).toBe(200);
  });

  it('unknown route 404, malformed JSON 400, non-object body 400, body over 1 MiB 413', async () => {
    emu = await emulator({ offers: [{ id: 'o1', project_id: 'p' }] });
    expect((await call(emu, 'GET', '/nope/v1')).body).toMatchObject({ code: 'not_found' });
    expect((await call(emu, 'DELETE', '/monetization/offers/v1/o1')).status).toBe(404);
    expect((await call(emu, 'PATCH', '/monetization/offers/v1/o1', '{"offer":')).body).toMatchObject({
      code: 'invalid_argument',
      message: 'malformed JSON body',
    });
    expect((await call(emu, 'PATCH', '/monetization/offers/v1/o1', '[1]')).status).toBe(400);
    const big = await call(emu, 'POST', '/monetization/offers/v1', {
      project_id: 'p',
      name: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(big.status).toBe(413);
  });
});
