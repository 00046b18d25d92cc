// Opening the backend a location names. The database's module (and `pg`) loads only when a location is a database
// URL, so every other run starts as fast as before.
import type { BackendContext, StateBackend, StateLocation } from './backend.js';
import { FileBackend } from './file-backend.js';

export async function openBackend(location: StateLocation, ctx: BackendContext): Promise<StateBackend> {
  if (location.kind === 'file') return new FileBackend(location.path);
  const { PostgresBackend } = await import('./postgres.js');
  return new PostgresBackend(location.pg, ctx);
}
