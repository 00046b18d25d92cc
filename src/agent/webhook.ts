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

/** What a verified delivery asks for: a run (a push to our branch), nothing (another branch), or a pong. */
export function hookAction(event: string | undefined, body: Buffer, branch: string): 'run' | 'ignore' | 'pong' {
  if (event === 'ping') return 'pong';
  if (event !== 'push') return 'ignore';
  try {
    const ref = (JSON.parse(body.toString('utf8')) as { ref?: unknown }).ref;
    return ref === undefined || ref === `refs/heads/${branch}` ? 'run' : 'ignore';
  } catch {
    return 'run'; // a form-encoded delivery: verified all the same, and a fetch costs little
  }
}
