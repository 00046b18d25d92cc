// GitHub's push webhook: the body's HMAC-SHA256 under the shared secret, as X-Hub-Signature-256 carries it, compared
// in constant time. Anything else (no signature, another algorithm, a wrong one, no secret configured) is refused.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Push payloads are a few kilobytes; GitHub's own cap is 25 MB. A body past this is refused unread (413). */
export const MAX_HOOK_BODY = 1024 * 1024;

export function signatureValid(secret: string | undefined, body: Buffer, header: string | undefined): boolean {
  if (!secret || !header || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  // Buffer.from(hex) stops at the first character that is not hex: a wrong length is a wrong signature.
  return given.length === expected.length && timingSafeEqual(given, expected);
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
