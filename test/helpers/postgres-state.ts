// The database state tests' schemas and backends: a schema of its own for each test, and the state backend on it.
import { writerOf, type StateLocation } from '../../src/state/backend.js';
import { openBackend } from '../../src/state/open.js';
import { parsePgUrl } from '../../src/state/postgres-url.js';

let schemas = 0;
/** A schema of its own for each test: the tests never see each other's states. */
export const fresh = () => `t${++schemas}_${process.pid}`;

const location = (url: string): StateLocation => ({ kind: 'postgres', pg: parsePgUrl(url, 'test', {}) });
export const backendFor = (url: string, environment = 'default') =>
  openBackend(location(url), {
    configuration: 'test',
    environment,
    writer: writerOf({ TAPEDECK_ACTOR: 'test' }),
    timeoutMs: 10_000,
  });
