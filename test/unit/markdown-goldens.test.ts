// Every Markdown golden file as GitHub shows it (issue 30): rendered by a GFM renderer, its tables keep their
// columns, no cell holds a run a comment cannot wrap, no character is hidden, and every changed leaf of the JSON
// plan beside it (CASE.json next to CASE.md) appears in the details of its change, as text a reviewer reads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HIDDEN_CHARACTERS } from '../helpers/hostile.js';
import { renderedTables, renderGfm, sourceCells, sourceTables, visibleText } from '../helpers/gfm.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface PlanChange {
  address: string;
  action: string;
  diff?: { path: string; before?: Json; after?: Json }[];
}

const root = join(import.meta.dirname, '..');
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
const goldens = [...walk(join(root, 'fixtures/golden')), ...walk(join(root, 'scenarios'))]
  .filter((f) => f.endsWith('.md'))
  .map((f) => relative(root, f))
  .sort();

/** Where a golden file holding a command's stdout and stderr starts the stderr. */
const STDERR = '--- stderr ---\n';
/** Longest run without a place to wrap that a cell may hold: a pull-request comment is about 880 px wide. */
const RUN = 80;
const escaped = (s: string) =>
  s.replace(HIDDEN_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A value as a reviewer must be able to find it: a string as JSON writes it inside quotes, hidden characters escaped. */
const shown = (v: Json) => (typeof v === 'string' ? escaped(JSON.stringify(v).slice(1, -1)) : JSON.stringify(v));

/** The leaves of a value: each with the path to it (array indexes left out: elements move) and its last key (an
 *  element of a list of plain values: the list's). */
function leaves(v: Json | undefined, at = '', key?: string): { at: string; key?: string; value: Json }[] {
  if (Array.isArray(v)) return v.flatMap((x) => leaves(x, `${at}[]`, key));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, `${at}.${k}`, k));
  return v === undefined || v === null ? [] : [{ at, key, value: v }];
}

/** The leaves of `a` that `b` has not at the same place with the same value (as many times as they occur). */
function changedLeaves(b: Json | undefined, a: Json | undefined) {
  const id = (l: { at: string; value: Json }) => `${l.at}=${JSON.stringify(l.value)}`;
  const left = new Map<string, number>();
  for (const l of leaves(b)) left.set(id(l), (left.get(id(l)) ?? 0) + 1);
  return leaves(a).filter((l) => {
    const k = id(l);
    const n = left.get(k) ?? 0;
    left.set(k, n - 1);
    return n <= 0;
  });
}

/**
 * What of a changed value must be shown: the value whole, or, for a long string (display.ts shows only the stretch
 * that changed, with some context, marked `…`), the stretch that differs from the same leaf's other side.
 */
function mustShow(value: Json, other: Json | undefined): string[] {
  if (typeof value !== 'string' || typeof other !== 'string') return [shown(value)];
  let head = 0;
  while (head < value.length && value[head] === other[head]) head++;
  let tail = 0;
  while (tail < value.length - head && tail < other.length - head && value.at(-1 - tail) === other.at(-1 - tail))
    tail++;
  return [shown(value.slice(head, value.length - tail))];
}

/** Each change's details section by address, as the rows of its tables a reader sees (the 80-column cuts joined up
 *  again). */
function sections(html: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [, summary, body] of html.matchAll(/<details><summary>([^]*?)<\/summary>([^]*?)<\/details>/g)) {
    const rows = renderedTables(body)
      .flat()
      .map((cells) => cells.map((c) => visibleText(c).replace(/\n/g, '')).join(' | '));
    out.set(visibleText(summary).split(' ')[1], rows);
  }
  return out;
}

/** The JSON plan beside a Markdown golden, if there is one. */
function planBeside(md: string): PlanChange[] | undefined {
  const file = join(root, md.replace(/\.md$/, '.json'));
  if (!existsSync(file)) return undefined;
  // validate.json is a command's output with its stderr after it, not a plan.
  const text = readFileSync(file, 'utf8');
  return text.includes(STDERR) ? undefined : (JSON.parse(text) as { changes?: PlanChange[] }).changes;
}

describe('Markdown goldens as GitHub renders them', () => {
  it('finds the goldens: the plan cases of issue 30 among them', () => {
    expect(goldens.filter((g) => g.startsWith('fixtures/golden/plans/')).length).toBeGreaterThanOrEqual(7);
    expect(goldens.length).toBeGreaterThanOrEqual(11);
  });

  describe.each(goldens)('%s', (golden) => {
    // A command's golden may hold its stderr after its output: only the output is posted.
    const md = readFileSync(join(root, golden), 'utf8').split(STDERR)[0];
    const html = renderGfm(md);

    it('every table keeps its columns: each row as many cells as its header, in the source and rendered', () => {
      const source = sourceTables(md);
      const rendered = renderedTables(html);
      expect(rendered.length).toBe(source.length);
      source.forEach((lines, t) => {
        const header = sourceCells(lines[0]);
        expect(lines.map(sourceCells), lines.join('\n')).toEqual(lines.map(() => header));
        // Header and rows: no line of the table fell out of it (the delimiter line is not a row).
        expect(rendered[t].length).toBe(lines.length - 1);
        expect(rendered[t].map((r) => r.length)).toEqual(rendered[t].map(() => rendered[t][0].length));
      });
    });

    it(`no cell holds an unbreakable run longer than ${RUN} characters, and nothing hidden is printed raw`, () => {
      for (const cell of renderedTables(html).flat(2)) {
        const runs = visibleText(cell).split(/\s+/);
        expect(
          runs.filter((r) => [...r].length > RUN),
          cell,
        ).toEqual([]);
      }
      expect(visibleText(html).match(HIDDEN_CHARACTERS)).toBeNull();
    });

    const changes = planBeside(golden);
    // Registered only where a JSON plan stands beside it: CI counts a skipped test as a failure.
    if (changes)
      it("every changed leaf of the JSON plan appears in its change's details", () => {
        const shownDetails = sections(html);
        const cut = /> ✂️ (\d+) more resource details not shown/.exec(md);
        const missing: string[] = [];
        for (const c of changes!.filter((x) => x.action !== 'noop')) {
          const rows = shownDetails.get(c.address);
          if (rows === undefined) {
            missing.push(c.address);
            // Only a plan cut by the size budget leaves details out, and never a release's or a replacement's.
            expect(cut, `${c.address} has no details`).not.toBeNull();
            expect(['release', 'replace'], c.address).not.toContain(c.action);
            continue;
          }
          for (const d of c.diff ?? []) {
            const mine = rows.filter((r) => r.startsWith(d.path));
            expect(mine.length, `${c.address}: a row for ${d.path}`).toBeGreaterThan(0);
            for (const [from, to] of [
              [d.before, d.after],
              [d.after, d.before],
            ]) {
              for (const l of changedLeaves(from, to)) {
                // The leaf's name and value on one row of its field.
                const others = leaves(from).filter((o) => o.at === l.at);
                const name = l.key ? [escaped(l.key)] : [];
                const must = [...name, ...mustShow(l.value, others.length === 1 ? others[0].value : undefined)];
                const whole = [...name, shown(l.value)];
                const found = [whole, must].some((parts) => mine.some((r) => parts.every((x) => r.includes(x))));
                expect(
                  found,
                  `${c.address}: ${d.path}${l.at} = ${must.join(' ')} on one row of\n${mine.join('\n')}`,
                ).toBe(true);
              }
            }
          }
        }
        expect(missing.length).toBe(Number(cut?.[1] ?? 0));
      });
  });
});
