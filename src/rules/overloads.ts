// CEL functions and operators cel-js lacks, added to the rules' environment (each one the conformance cases test):
// int of a uint or a timestamp, string of a timestamp or a duration, the identity conversions and bytes ordering.
import type { Environment } from '@marcbachmann/cel-js';

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

/** A timestamp as CEL writes it: RFC 3339 in UTC, the fraction without its trailing zeros. */
const timestampText = (d: Date) => d.toISOString().replace(/\.?0+Z$/, 'Z');

/** A duration as CEL writes it: seconds, with a fraction only where there is one (`1.5s`). */
function durationText(d: { seconds: bigint | number; nanos: number }): string {
  const total = BigInt(d.seconds) * 1_000_000_000n + BigInt(d.nanos);
  const sign = total < 0n ? '-' : '';
  const abs = total < 0n ? -total : total;
  const fraction = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${abs / 1_000_000_000n}${fraction ? `.${fraction}` : ''}s`;
}

/** -1, 0 or 1: bytes ordered as CEL orders them, byte by byte, a prefix first. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Math.sign(Buffer.from(a).compare(Buffer.from(b)));
}

export function addOverloads(env: Environment): Environment {
  env
    .registerFunction('int(uint): int', (u: { value: bigint | number }) => {
      const v = BigInt(u.value);
      if (v > 2n ** 63n - 1n) throw new Error('integer overflow');
      return v;
    })
    .registerFunction(`int(${TS}): int`, (d: Date) => BigInt(Math.floor(d.getTime() / 1000)))
    .registerFunction(`string(${TS}): string`, timestampText)
    .registerFunction(`string(${DUR}): string`, durationText)
    .registerFunction(`timestamp(${TS}): ${TS}`, (d: Date) => d)
    .registerFunction(`duration(${DUR}): ${DUR}`, (d: unknown) => d);
  for (const [op, holds] of [
    ['<', (c: number) => c < 0],
    ['<=', (c: number) => c <= 0],
    ['>', (c: number) => c > 0],
    ['>=', (c: number) => c >= 0],
  ] as const)
    env.registerOperator(`bytes ${op} bytes: bool`, (a: Uint8Array, b: Uint8Array) => holds(compareBytes(a, b)));
  return env;
}
