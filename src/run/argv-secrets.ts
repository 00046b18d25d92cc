// A secret on the command line is readable by every user of the machine for as long as the process runs (ps,
// /proc/<pid>/cmdline). It is already masked in every output (the caller registers it); this says so once, names
// where to give it instead, and overwrites the process's command line so it shows for no longer than the start.
import type { Io } from '../types.js';

/** What each command has been told already, by its secret registry (one per command; the agent's runs each have
 *  an Io of their own around the agent's registry): the agent builds its options again for every run. */
const warned = new WeakMap<object, Set<string>>();

/**
 * Warn about the secrets named in `what` (each "a credential in --repo's URL (give it with …)"), once, and hide the
 * command line when one of `values` is really in this process's argv (a test calling main() in-process has other
 * arguments, and its process keeps its title).
 */
export function warnSecretsInArgv(what: string[], values: string[], io: Io, title: string): void {
  const key = io.secret ?? io;
  const said = warned.get(key) ?? new Set<string>();
  warned.set(key, said);
  what = what.filter((w) => !said.has(w));
  if (!what.length) return;
  for (const w of what) said.add(w);
  io.err(
    `warning: ${what.join(' and ')}: every user of this machine could read the command line; ` +
      `it is kept out of every output\n`,
  );
  if (values.some((v) => v && process.argv.some((a) => a.includes(v)))) process.title = title;
}
