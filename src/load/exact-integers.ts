// Integers beyond 2^53 read exactly. A JavaScript number holds integers exactly only up to 2^53 (9007199254740993
// reads as ...992, 10^21 prints as 1e+21), while int64 fields go up to 2^63 - 1. Such an integer is kept as its exact
// decimal text, taken from the source, and its pointer is listed, so that validation can tell it from a string: an
// int64 field takes it (its wire form is that string anyway), any other field refuses it. Only `yaml` reads files
// that hold one: the quick reader leaves them to it (core-schema.ts).
import type { Document } from 'yaml';
import { escapePointer } from '../schema/model.js';
import { yamlLib } from './yaml-lib.js';

/** The shortest spelling of an integer beyond 2^53 has 14 digits (0x20000000000000); most files have no such run. */
const MAYBE_WIDE = /[0-9a-fA-F]{14}/;
/** The core schema's integer spellings (decimal, octal, hexadecimal), as opposed to a float's. */
const INTEGER = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;

/** Turns the document's integers beyond 2^53 into BigInts read from their source text; whether there was one. */
export function readWideIntegers(doc: Document.Parsed, text: string): boolean {
  if (!MAYBE_WIDE.test(text)) return false;
  let found = false;
  yamlLib().visit(doc, {
    Scalar: (_, node) => {
      // Beyond 2^53 `yaml` parsed it inexactly, or as Infinity past 1.8e308; the source text is exact.
      if (typeof node.value !== 'number' || Number.isSafeInteger(node.value) || !INTEGER.test(node.source ?? ''))
        return;
      node.value = BigInt(node.source!);
      found = true;
    },
  });
  return found;
}

/** `v` with each BigInt as its decimal text (containers copied only where one is), their pointers added to `wide`.
 *  A node reached through several aliases is copied at each, so each place gets its own pointer. */
export function withExactIntegers(v: unknown, pointer: string, wide: string[]): unknown {
  if (typeof v === 'bigint') {
    wide.push(pointer);
    return v.toString();
  }
  if (Array.isArray(v)) {
    const items = v.map((x, i) => withExactIntegers(x, `${pointer}/${i}`, wide));
    return items.some((y, i) => y !== v[i]) ? items : v;
  }
  if (typeof v !== 'object' || v === null) return v;
  const entries = Object.entries(v).map(
    ([k, x]) => [k, withExactIntegers(x, `${pointer}/${escapePointer(k)}`, wide)] as const,
  );
  return entries.some(([k, y]) => y !== (v as Record<string, unknown>)[k]) ? Object.fromEntries(entries) : v;
}
