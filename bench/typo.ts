// The benchmark's typo rows (bench/run.ts): `validate` of one file of N documents, clean and with one typo in the
// middle (an unclosed quote). The fast reader leaves only the broken document to the `yaml` library, so the typo
// costs that document's reading, not the file's: the target is at most 3x the clean file's time (issue 29: it was
// 250x, a search of the whole file per document). Medians of three runs of each.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Measured } from './harness.js';

export type Run = (args: string[], script?: string, codes?: number[]) => Promise<Measured>;

export interface TypoRow {
  step: string;
  wall_ms: number;
  cpu_ms: number;
  max_rss_mb: number;
  code: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function measured(step: string, run: Run, dir: string, codes: number[]): Promise<TypoRow> {
  const runs: Measured[] = [];
  for (let i = 0; i < 3; i++) runs.push(await run(['validate', dir], undefined, codes));
  const pick = (k: 'wall_ms' | 'cpu_ms' | 'max_rss_mb') => median(runs.map((r) => r[k]));
  return { step, wall_ms: pick('wall_ms'), cpu_ms: pick('cpu_ms'), max_rss_mb: pick('max_rss_mb'), code: runs[0].code };
}

/** Both rows and their target; `docs` are the documents (written into one file), `root` a directory to write in. */
export async function typoRows(run: Run, docs: object[], root: string) {
  const texts = docs.map((d) => stringify(d));
  const write = (name: string, parts: string[]) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'all.yaml'), parts.join('---\n'));
    return dir;
  };
  const clean = write('typo-clean', texts);
  const middle = texts.length >> 1;
  const typo = write(
    'typo-one',
    texts.map((t, i) => (i === middle ? t.replace(/^name: /m, 'name: "') : t)),
  );
  const rows = [
    await measured(`validate, one file of ${docs.length}`, run, clean, [0]),
    await measured(`validate, same, one typo`, run, typo, [1]),
  ];
  const [a, b] = rows;
  return { rows, targets: { validate_one_typo_within_3x_clean: b.code === 1 && b.wall_ms <= 3 * a.wall_ms } };
}
