// google.type.Money's rules beyond its fields' types, for validate and the emulator alike: nanos hold less than
// one unit (-999,999,999 to 999,999,999) and have the sign of units, so an amount has exactly one spelling.
import { canonicalInt64, isObject } from './values.js';

export const NANOS_LIMIT = 999_999_999;

/** nanos beyond one unit (the schema says it too: minimum and maximum), or undefined. */
export function nanosRangeProblem(money: unknown): string | undefined {
  const nanos = isObject(money) ? money.nanos : undefined;
  if (typeof nanos !== 'number' || Math.abs(nanos) <= NANOS_LIMIT) return undefined;
  return `nanos ${nanos} is outside -999999999 to 999999999: a whole unit is 1000000000 nanos, put it in units`;
}

/** units and nanos of different signs (the schema cannot say it), or undefined. */
export function moneySignProblem(money: unknown): string | undefined {
  if (!isObject(money) || typeof money.nanos !== 'number' || money.nanos === 0) return undefined;
  const units = canonicalInt64(money.units);
  if (units === undefined || units === '0' || units.startsWith('-') === money.nanos < 0) return undefined;
  return (
    `nanos ${money.nanos} and units ${units} have different signs: both are negative for a negative amount` +
    ' (-1.50 is units -1, nanos -500000000)'
  );
}
