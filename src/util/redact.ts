// Secrets kept out of every output, and server text made fit for one output line. One place for both: the client
// cleans what a server sends, and the CLI masks everything it prints (defence in depth: a secret that reached an
// output any other way is masked there too).
import { printable } from '../schema/values.js';
import { cellCode, escapeData, htmlText, markdownEscaped, markdownText, oneLine } from './escape.js';

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

/**
 * Every spelling of a secret a server or a document might echo, and every one an output writes it in (escape.ts):
 * with unprintable characters as \uXXXX escapes (one-line text, JSON output), as HTML or Markdown text, in a table
 * cell's code span, in a GitHub annotation. Markdown also cuts a long code span in parts: its renderer masks values
 * before it cuts them (RenderOptions.mask).
 */
function formsOf(secret: string): string[] {
  const cased = [secret, secret.toLowerCase(), secret.toUpperCase()];
  const json = JSON.stringify(secret).slice(1, -1);
  const written = [
    oneLine(secret),
    printable(secret),
    printable(json),
    markdownText(secret),
    markdownEscaped(htmlText(secret)),
    cellCode(oneLine(secret)),
  ];
  return [
    ...new Set([
      ...cased,
      encodeURIComponent(secret),
      json,
      ...written,
      ...written.map(escapeData),
      ...cased.flatMap((s) => base64Cores(Buffer.from(s))),
    ]),
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
    return maskStrings(v, (t) => this.mask(t));
  }
}

/** A JSON value with `mask` applied to every string in it, keys too. */
export function maskStrings<T>(v: T, mask: (text: string) => string): T {
  if (typeof v === 'string') return mask(v) as T;
  if (Array.isArray(v)) return v.map((x: unknown) => maskStrings(x, mask)) as T;
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [mask(k), maskStrings(x, mask)])) as T;
  return v;
}

/** A string a server sent, fit for one line of output: secrets masked, control characters escaped, capped. */
export function serverText(s: string, secrets: Secrets, max = MAX_SERVER_TEXT): string {
  const clean = oneLine(secrets.mask(s));
  return clean.length > max ? `${clean.slice(0, max)}… (${clean.length - max} more characters)` : clean;
}
