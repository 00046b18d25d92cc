// The emulator's in-memory store: one ordered map per collection (insertion order = creation order), seeded from
// a file, optionally persisted to a data file with atomic writes so a restart keeps every change.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync, renameSync, existsSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { builtinKinds } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { resourceModel } from '../schema/model.js';
import { isObject, zeroFill, type JsonObject } from '../schema/values.js';
import { deepFreeze } from './json.js';
import { checkShape } from './shape.js';

export class SeedError extends Error {}

const idPrefix: Record<string, string> = {
  offers: 'off_',
  standing_phases: 'sp_',
  configurations: 'cfg_',
  video_protection_rulesets: 'vpr_',
  events: 'evt_',
  content_types: 'ct_',
  creative_works: 'cw_',
  rtmp_ingests: 'ing_',
  vods: 'vod_',
  banners: 'ban_',
};

/** The field that names a stored resource: `id`, or the kind's key field (policy resource_key). */
export const keyOf = (k: KindDef) => (k.identity.by === 'key' ? k.identity.field : 'id');

export class Store {
  readonly collections = new Map<string, Map<string, JsonObject>>();
  private etagSeq = 0;

  constructor(private readonly dataFile?: string) {
    for (const k of builtinKinds) this.collections.set(k.seedKey, new Map());
  }

  kindOf(seedKey: string): KindDef {
    return builtinKinds.find((k) => k.seedKey === seedKey)!;
  }

  col(k: KindDef): Map<string, JsonObject> {
    return this.collections.get(k.seedKey)!;
  }

  /** Stores a resource in the live API's style: every field present, int64 as strings, timestamps in UTC. Stored
   *  resources are frozen: a write replaces one, never changes it in place. */
  put(k: KindDef, resource: JsonObject): JsonObject {
    const stored = deepFreeze(zeroFill(resourceModel(k.schema), resource) as JsonObject);
    this.col(k).set(String(stored[keyOf(k)]), stored);
    return stored;
  }

  newId(k: KindDef): string {
    return `${idPrefix[k.seedKey] ?? 'id_'}${randomBytes(6).toString('hex')}`;
  }

  newEtag(): string {
    return Buffer.from(`${Date.now()}:${++this.etagSeq}:${randomBytes(4).toString('hex')}`).toString('base64');
  }

  /** Loads a seed (YAML or JSON text): { offers: [...], policies: [{resource_key, policy, etag?}], ... }. */
  seed(text: string, file: string): void {
    let data: unknown;
    try {
      data = parseYaml(text, { maxAliasCount: 1000 });
    } catch (e) {
      throw new SeedError(`${file}: not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
    }
    if (data === null || data === undefined) return;
    if (!isObject(data)) throw new SeedError(`${file}: the seed must be an object keyed by collection`);
    for (const [key, entries] of Object.entries(data)) {
      const k = builtinKinds.find((x) => x.seedKey === key);
      if (!k)
        throw new SeedError(
          `${file}: unknown collection "${key}" (known: ${builtinKinds.map((x) => x.seedKey).join(', ')})`,
        );
      if (!Array.isArray(entries)) throw new SeedError(`${file}: ${key} must be an array`);
      entries.forEach((e, i) => {
        const where = `${file}: ${key}[${i}]`;
        if (!isObject(e)) throw new SeedError(`${where}: must be an object`);
        const key_ = keyOf(k);
        if (typeof e[key_] !== 'string' || e[key_] === '') throw new SeedError(`${where}: needs a string ${key_}`);
        try {
          checkShape(resourceModel(k.schema), e, '');
        } catch (err) {
          throw new SeedError(`${where}: ${(err as Error).message}`);
        }
        const copy = { ...e };
        if (
          k.read.notFound === 'empty' &&
          k.update.style === 'replace' &&
          k.update.carry?.includes('etag') &&
          !copy.etag
        )
          copy.etag = this.newEtag();
        this.put(k, copy);
      });
    }
  }

  /** Reads the data file written by an earlier run; a corrupt one is a clear error, never silently replaced. */
  load(): boolean {
    if (!this.dataFile || !existsSync(this.dataFile)) return false;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(this.dataFile, 'utf8'));
    } catch (e) {
      throw new SeedError(
        `${this.dataFile}: the data file is corrupt (${(e as Error).message}); move it away or fix it`,
      );
    }
    if (!isObject(data) || data.format_version !== 1 || !isObject(data.collections)) {
      throw new SeedError(`${this.dataFile}: not an emulator data file (expected format_version 1 and collections)`);
    }
    for (const [key, entries] of Object.entries(data.collections)) {
      const col = this.collections.get(key);
      if (!col || !Array.isArray(entries))
        throw new SeedError(`${this.dataFile}: unknown or malformed collection "${key}"`);
      const k = this.kindOf(key);
      for (const e of entries) if (isObject(e)) col.set(String(e[keyOf(k)]), deepFreeze(e));
    }
    return true;
  }

  /** Writes the whole store to the data file: temp file, fsync, rename, so a crash leaves the old or the new. */
  save(): void {
    if (!this.dataFile) return;
    const collections: Record<string, JsonObject[]> = {};
    for (const [key, col] of this.collections) collections[key] = [...col.values()];
    const tmp = `${this.dataFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ format_version: 1, collections }));
    const fd = openSync(tmp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.dataFile);
  }
}
