// Files read with a bound, and files written so that only their owner reads them and a crash leaves the old file
// or the new one, never a torn one.
import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/**
 * Atomic replace with mode 0600: a temp file next to it, fsync, rename. The mode is set on the open file, since
 * `open` applies a mode only when it creates (a temp file left by a crash keeps its old one); and the rename
 * replaces whatever `file` was (an existing file of another mode, a symlink) instead of writing through it.
 */
export function writePrivateFile(file: string, text: string | Iterable<string>): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600);
    for (const piece of typeof text === 'string' ? [text] : text) writeSync(fd, piece);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/**
 * A file's bytes, or undefined when it holds more than `max`: reading stops there. A path can name a device that
 * never ends (`/dev/zero`) or a pipe (`<(vault read …)`, which must keep working), so the size on disk proves
 * nothing: only what was read counts.
 */
export function readBounded(file: string, max: number): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    // A regular file is read into one buffer of its size (pieces joined take twice the memory: docs/performance.md);
    // what it holds beyond that size, or a stream's bytes, in pieces after it.
    const size = fstatSync(fd).size;
    const chunks: Buffer[] = [];
    for (let total = 0; ;) {
      const chunk = Buffer.allocUnsafe(Math.min(total === 0 && size > 0 ? size : 64 * 1024, max + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > max) return undefined;
    }
  } finally {
    closeSync(fd);
  }
}
