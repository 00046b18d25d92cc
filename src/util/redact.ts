// Secrets kept out of every output, and server text made fit for one output line. One place for both: the client
// cleans what a server sends, and the CLI masks everything it prints (defence in depth: a secret that reached an
// output any other way is masked there too).
import { printable, UNPRINTABLE } from '../schema/values.js';

export const REDACTED = '[redacted]';
/** Shorter values are not masked: masking every "ab" in the output would hide more than it protects. */
const MIN_SECRET = 4;
/** Server text longer than this is cut: a message is one line of a report, not a payload. */
export const MAX_SERVER_TEXT = 500;

/**
 * The parts of `bytes`' base64 that depend on those bytes alone, at each of the three alignments they can have
 * inside a longer encoded text (a server may encode the whole `Bearer <token>` header, not the token).
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
    // With padding bytes in front, the first group mixes them in; the last partial group depends on what follows.
    const core = encoded.slice(pad ? 4 : 0, Math.floor((pad + bytes.length) / 3) * 4);
    if (core.length >= 8) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

/** Every spelling of a secret a server or a document might echo, and every one an output writes it in: one-line
 *  text and JSON write unprintable characters as \uXXXX escapes (oneLine, printable, jsonText). */
function formsOf(secret: string): string[] {
  const cased = [secret, secret.toLowerCase(), secret.toUpperCase()];
  const json = JSON.stringify(secret).slice(1, -1);
  return [
    ...cased,
    encodeURIComponent(secret),
    json,
    ...[oneLine(secret), printable(secret), printable(json)].filter((f) => f !== secret && f !== json),
    ...cased.flatMap((s) => base64Cores(Buffer.from(s))),
  ];
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The secrets of one run (the token); masks them, in any of their forms, in any text. */
export class Secrets {
  private readonly forms = new Set<string>();
  private pattern: RegExp | undefined;

  add(secret: string | undefined): this {
    if (!secret || secret.length < MIN_SECRET) return this;
    for (const f of formsOf(secret)) this.forms.add(f);
    this.pattern = undefined;
    return this;
  }

  /** One case-insensitive alternation, longest forms first so a longer spelling is masked whole. */
  private regex(): RegExp | undefined {
    if (!this.forms.size) return undefined;
    this.pattern ??= new RegExp(
      [...this.forms]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegex)
        .join('|'),
      'gi',
    );
    return this.pattern;
  }

  /** Whether `text` holds a secret in any form. */
  holds(text: string): boolean {
    const re = this.regex();
    if (!re) return false;
    re.lastIndex = 0;
    return re.test(text);
  }

  mask(text: string): string {
    const re = this.regex();
    return re ? text.replace(re, REDACTED) : text;
  }

  /** A JSON value with every string masked (keys too: a server may echo the token as a key). */
  maskJson(v: unknown): unknown {
    if (typeof v === 'string') return this.mask(v);
    if (Array.isArray(v)) return v.map((x) => this.maskJson(x));
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [this.mask(k), this.maskJson(x)]));
    return v;
  }
}

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Control, line-separator, bidi and zero-width characters (values.ts UNPRINTABLE) written as escapes: the text
 *  stays readable, on one line, and shows every character it holds. */
export const oneLine = (s: string) =>
  s.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A string a server sent, fit for one line of output: secrets masked, control characters escaped, capped. */
export function serverText(s: string, secrets: Secrets, max = MAX_SERVER_TEXT): string {
  const clean = oneLine(secrets.mask(s));
  return clean.length > max ? `${clean.slice(0, max)}… (${clean.length - max} more characters)` : clean;
}
