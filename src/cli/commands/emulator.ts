import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseRateRules } from '../../emulator/rate-limit.js';
import { startEmulator } from '../../emulator/server.js';
import { SeedError } from '../../emulator/store.js';
import { UserError } from '../../errors.js';
import type { Io } from '../io.js';
import { positiveInt } from '../../run/options.js';

export interface EmulatorFlags {
  port?: string;
  host?: string;
  seed?: string;
  token?: string[];
  data?: string;
  latency?: string;
  faultRate?: string;
  faultSeed?: string;
  retryAfter?: string;
  maxPageSize?: string;
  faultOn?: string;
  rateLimit?: string[];
}

function nonNegative(name: string, raw: string | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > max)
    throw new UserError(`${name} must be a number from 0 to ${max}, not ${JSON.stringify(raw)}`);
  return n;
}

/** A TCP port: 0 (any free one) to 65535; 8080 when not given. */
function port(raw: string | undefined): number {
  if (raw === undefined) return 8080;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535)
    throw new UserError(`--port must be a whole number from 0 to 65535, not ${JSON.stringify(raw)}`);
  return n;
}

function rateLimits(raws: string[] | undefined) {
  try {
    return parseRateRules(raws ?? []);
  } catch (e) {
    throw new UserError((e as Error).message);
  }
}

function faultOn(raw: string | undefined): 'all' | 'writes' | undefined {
  if (raw === undefined || raw === 'all' || raw === 'writes') return raw;
  throw new UserError(`--fault-on must be all or writes, not ${JSON.stringify(raw)}`);
}

/** Runs until SIGINT or SIGTERM (or `stop`, for tests). */
export async function emulatorCommand(flags: EmulatorFlags, io: Io, stop?: Promise<void>): Promise<number> {
  let seed: { text: string; file: string } | undefined;
  if (flags.seed) {
    try {
      seed = { text: readFileSync(resolve(io.cwd, flags.seed), 'utf8'), file: flags.seed };
    } catch (e) {
      throw new UserError(`cannot read seed file ${flags.seed}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, {
        code: 'E_INPUT',
      });
    }
  }
  let emu;
  try {
    emu = await startEmulator({
      port: port(flags.port),
      host: flags.host ?? '127.0.0.1',
      seed,
      tokens: flags.token,
      dataFile: flags.data ? resolve(io.cwd, flags.data) : undefined,
      latencyMs: nonNegative('--latency', flags.latency),
      faultRate: nonNegative('--fault-rate', flags.faultRate, 1),
      faultSeed: nonNegative('--fault-seed', flags.faultSeed),
      retryAfter: nonNegative('--retry-after', flags.retryAfter),
      faultOn: faultOn(flags.faultOn),
      rateLimits: rateLimits(flags.rateLimit),
      maxPageSize:
        flags.maxPageSize === undefined ? undefined : positiveInt('--max-page-size', flags.maxPageSize, 1000),
    });
  } catch (e) {
    if (e instanceof SeedError) throw new UserError(e.message, { code: 'E_INPUT' });
    // Whatever the system says of the address (in use, not allowed, a host name it cannot resolve or does not have).
    const code = (e as NodeJS.ErrnoException).code;
    if (!(e instanceof UserError) && typeof code === 'string' && /^E[A-Z_]+$/.test(code))
      throw new UserError(`cannot listen on ${flags.host ?? '127.0.0.1'}:${flags.port ?? 8080}: ${code}`, {
        code: 'E_NETWORK',
      });
    throw e;
  }
  io.out(`tapedeck emulator listening on ${emu.url}\n`);
  await new Promise<void>((done) => {
    const finish = () => done();
    process.once('SIGINT', finish);
    process.once('SIGTERM', finish);
    stop?.then(finish);
  });
  await emu.close();
  return 0;
}
