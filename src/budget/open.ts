// The budget's store for a run, beside its state: the state's database (a row per platform origin), or a file in
// the state file's directory. The database's module loads only when the first lease is asked.
import { dirname } from 'node:path';
import type { StateLocation, Writer } from '../state/backend.js';
import type { Clock } from '../types.js';
import type { Grant, LeaseAsk } from './allocate.js';
import { bucketFile, FileBudgetStore } from './file-store.js';
import { BudgetGate, type BudgetStore } from './gate.js';
import type { PgBudgetStore } from './pg-store.js';
import type { BudgetSettings } from './settings.js';

export interface BudgetPlace {
  state: StateLocation;
  origin: string;
  configuration: string;
  environment: string;
  writer: Writer;
  timeoutMs: number;
}

/** A database store opened on its first lease. */
class LazyPgStore implements BudgetStore {
  readonly name: string;
  private store?: Promise<PgBudgetStore>;

  constructor(private readonly place: BudgetPlace & { state: { kind: 'postgres' } }) {
    this.name = `the state database ${place.state.pg.shown}`;
  }

  private open(): Promise<PgBudgetStore> {
    const { state, configuration, environment, writer, timeoutMs, origin } = this.place;
    return (this.store ??= import('./pg-store.js').then(
      ({ PgBudgetStore: Store }) =>
        new Store(state.pg, { configuration, environment, writer, timeoutMs: Math.min(timeoutMs, 5000) }, origin),
    ));
  }

  get roundTrips(): number {
    return this.opened?.roundTrips ?? 0;
  }

  private opened?: PgBudgetStore;

  async lease(ask: LeaseAsk): Promise<Grant> {
    this.opened = await this.open();
    return this.opened.lease(ask);
  }

  async close(): Promise<void> {
    await (await this.store)?.close();
  }
}

export function budgetStore(place: BudgetPlace): BudgetStore {
  if (place.state.kind === 'file') return new FileBudgetStore(bucketFile(dirname(place.state.path), place.origin));
  return new LazyPgStore(place as BudgetPlace & { state: { kind: 'postgres' } });
}

export function budgetGate(
  settings: BudgetSettings,
  place: BudgetPlace,
  clock: Clock,
  warn: (line: string) => void,
  debug?: (line: string) => void,
): BudgetGate {
  return new BudgetGate({
    store: budgetStore(place),
    holder: { role: settings.role, configuration: place.configuration, environment: place.environment },
    weight: settings.weight,
    ...(settings.max_rps !== undefined ? { max_rps: settings.max_rps } : {}),
    ...(settings.share !== undefined ? { share: settings.share } : {}),
    clock,
    warn,
    debug,
  });
}
