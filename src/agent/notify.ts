// Notifications: a JSON POST per event to each configured URL, Slack-compatible (`text`) with the details beside
// it. Sent in the background, one at a time per URL, retried with exponential backoff; the reconcile never waits
// for them. A URL is a secret (a Slack webhook's path is its key): only its host is ever logged.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Log } from './log.js';

export type EventKind = 'drift' | 'applied' | 'failed' | 'invalid' | 'held';

export interface AgentEvent {
  event: EventKind;
  /** one line for people (Slack shows it) */
  text: string;
  environment: string;
  commit?: string;
  [detail: string]: unknown;
}

const ATTEMPTS = 5;
const BACKOFF_MS = 500;
const TIMEOUT_MS = 10_000;
/** Past this many events waiting for one URL (it is down), the oldest are dropped, and the log says so. */
const MAX_QUEUED = 50;

export class Notifier {
  private readonly queues = new Map<string, AgentEvent[]>();
  private readonly sending = new Map<string, Promise<void>>();

  constructor(
    private readonly urls: string[],
    private readonly log: Log,
    private readonly mask: (t: string) => string,
  ) {}

  notify(e: AgentEvent): void {
    for (const url of this.urls) {
      const queue = this.queues.get(url) ?? [];
      this.queues.set(url, queue);
      queue.push(e);
      if (queue.length > MAX_QUEUED) {
        queue.shift();
        this.log('warn', 'notification dropped: too many waiting', { host: new URL(url).host });
      }
      if (!this.sending.has(url)) this.sending.set(url, this.drain(url, queue));
    }
  }

  private async drain(url: string, queue: AgentEvent[]): Promise<void> {
    for (let e = queue.shift(); e; e = queue.shift()) await this.send(url, e);
    this.sending.delete(url);
  }

  private async send(url: string, e: AgentEvent): Promise<void> {
    const host = new URL(url).host;
    const body = this.mask(JSON.stringify(e));
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      let why: string;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(TIMEOUT_MS),
          redirect: 'error',
        });
        await res.body?.cancel();
        if (res.ok) return;
        why = `HTTP ${res.status}`;
      } catch (err) {
        why = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      }
      const last = attempt === ATTEMPTS;
      this.log(last ? 'error' : 'warn', last ? 'notification not delivered' : 'notification failed; retrying', {
        host,
        event: e.event,
        attempt,
        error: why,
      });
      if (!last) await sleep(BACKOFF_MS * 2 ** (attempt - 1));
    }
  }

  /** Waits up to `ms` for what is being sent (a stopping agent gives its last events a moment). */
  async settle(ms: number): Promise<void> {
    await Promise.race([Promise.all(this.sending.values()), sleep(ms)]);
  }
}
