// What tells one process from another on this machine beyond its pid, which is reused (a restarted container is
// PID 1 again, under the same host name): a random id for this process, when the process at a pid started (Linux's
// /proc/PID/stat, in clock ticks since boot), the boot's id, and the pid namespace the pid is counted in. Where
// /proc is not there (macOS, Windows), only the run id and the pid are known.
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';

export interface ProcessIdentity {
  /** random, this process's alone */
  run: string;
  /** the process's start, in clock ticks since boot */
  started?: string;
  boot?: string;
  /** the pid namespace (a container has its own): a pid means the same process only within one */
  pidns?: string;
}

const quietly = <T>(read: () => T): T | undefined => {
  try {
    return read();
  } catch {
    return undefined;
  }
};

/** When the process at `pid` started (field 22 of /proc/PID/stat, after the command in parentheses). */
export function startedAt(pid: number): string | undefined {
  return quietly(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  });
}

export const bootId = () => quietly(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
export const pidNamespace = () => quietly(() => readlinkSync('/proc/self/ns/pid'));

let self: ProcessIdentity | undefined;

/** This process's identity (made once). */
export function thisProcess(): ProcessIdentity {
  self ??= {
    run: randomUUID(),
    ...optional('started', startedAt(process.pid)),
    ...optional('boot', bootId()),
    ...optional('pidns', pidNamespace()),
  };
  return self;
}

const optional = (key: string, value: string | undefined) => (value ? { [key]: value } : {});
