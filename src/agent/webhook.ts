// GitHub's push webhook: the body's HMAC-SHA256 under the shared secret, as X-Hub-Signature-256 carries it, compared
// in constant time. Anything else (no signature, another algorithm, a wrong one, no secret configured) is refused.
// What can be refused from the headers alone is refused before a byte of the body is read (hookRefusal).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Push payloads are a few kilobytes; GitHub's own cap is 25 MB. A body past this is refused unread (413). */
export const MAX_HOOK_BODY = 1024 * 1024;

/** The two content types GitHub sends a webhook with. */
const HOOK_TYPES = ['application/json', 'application/x-www-form-urlencoded'];

/**
 * The HMAC a header carries, when it is exactly one `sha256=<64 hex>`: trailing characters, a second value (a
 * repeated header arrives joined with a comma) or another spelling of the algorithm make it no signature at all.
 */
export function signatureOf(header: string | string[] | undefined): Buffer | undefined {
  const m = typeof header === 'string' ? /^sha256=([0-9a-fA-F]{64})$/.exec(header) : null;
  return m ? Buffer.from(m[1], 'hex') : undefined;
}

export function signatureValid(secret: string | undefined, body: Buffer, header: string | undefined): boolean {
  const given = signatureOf(header);
  if (!secret || !given) return false;
  return timingSafeEqual(given, createHmac('sha256', secret).update(body).digest());
}

export interface Refusal {
  status: number;
  /** for the log and the answer: never the body or the signature */
  why: string;
}

/** Why a delivery is refused on its headers alone, before its body is read (and before the secret's file is read);
 *  undefined when the body may be read. */
export function hookRefusal(headers: IncomingHttpHeaders): Refusal | undefined {
  const signature = headers['x-hub-signature-256'];
  if (signature === undefined) return { status: 401, why: 'no X-Hub-Signature-256' };
  if (!signatureOf(signature)) return { status: 401, why: 'X-Hub-Signature-256 is not one sha256=<64 hex digits>' };
  const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!HOOK_TYPES.includes(type)) return { status: 415, why: `content type is not ${HOOK_TYPES.join(' or ')}` };
  const length = headers['content-length'];
  if (length === undefined) return { status: 411, why: 'no Content-Length' };
  if (!/^\d+$/.test(length)) return { status: 400, why: 'Content-Length is not a number' };
  if (Number(length) > MAX_HOOK_BODY) return { status: 413, why: `body over ${MAX_HOOK_BODY} bytes` };
  return undefined;
}

/**
 * A delivery's payload: the body itself (content type application/json), or its `payload` field (GitHub's
 * application/x-www-form-urlencoded deliveries); undefined when it cannot be read.
 */
function payload(body: Buffer, contentType: string | undefined): unknown {
  const text = body.toString('utf8');
  try {
    if (/^application\/x-www-form-urlencoded\b/i.test(contentType ?? ''))
      return JSON.parse(new URLSearchParams(text).get('payload') ?? '');
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What a verified delivery asks for: a run (a push to our branch), nothing (another branch), or a pong. Either
 * content type GitHub sends is read; a push whose payload cannot be read at all runs (it was signed with our secret,
 * and a fetch costs little), and one without a ref too.
 */
export function hookAction(
  event: string | undefined,
  body: Buffer,
  branch: string,
  contentType?: string,
): 'run' | 'ignore' | 'pong' {
  if (event === 'ping') return 'pong';
  if (event !== 'push') return 'ignore';
  const p = payload(body, contentType);
  const ref = p && typeof p === 'object' ? (p as { ref?: unknown }).ref : undefined;
  return ref === undefined || ref === `refs/heads/${branch}` ? 'run' : 'ignore';
}
