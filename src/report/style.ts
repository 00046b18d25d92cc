// Colours for a terminal only: not when NO_COLOR is set, TERM is dumb, or output is not a terminal.
import type { Io } from '../types.js';

export interface Style {
  add(s: string): string;
  change(s: string): string;
  bad(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
const plain: Style = { add: (s) => s, change: (s) => s, bad: (s) => s, dim: (s) => s, bold: (s) => s };

export function styleFor(io: Io): Style {
  const off = !io.isTTY || (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') || io.env.TERM === 'dumb';
  if (off) return plain;
  return { add: wrap(32, 39), change: wrap(33, 39), bad: wrap(31, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

export { plain as noStyle };
