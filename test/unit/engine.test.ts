// How the CLI's process runs V8 (src/run/engine.ts), in a process of its own: the flags are the whole process's.
// The memory this buys is the benchmark's business (`npm run bench -- --scale`); here, that the collection between
// phases happens where tuneEngine asked for it, and nowhere else.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const engine = resolve(import.meta.dirname, '../../src/run/engine.ts');

/** How many full collections ran during collectPhaseGarbage(), with or without tuneEngine() first. */
function fullCollectionsDuringCall(tuned: boolean): number {
  const script = `
    import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
    const { collectPhaseGarbage, tuneEngine } = await import(${JSON.stringify(engine)});
    ${tuned ? 'tuneEngine();' : ''}
    const major = [];
    const watch = new PerformanceObserver((list) => major.push(...list.getEntries().filter((e) => e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR)));
    watch.observe({ entryTypes: ['gc'] });
    const from = performance.now();
    collectPhaseGarbage();
    const to = performance.now();
    setTimeout(() => {
      watch.disconnect();
      console.log(major.filter((e) => e.startTime >= from && e.startTime <= to).length + ' ' + typeof globalThis.gc);
    }, 50);
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  }).trim();
  const [count, globalGc] = out.split(' ');
  // The collector is never handed to the program's own globals.
  expect(globalGc).toBe('undefined');
  return Number(count);
}

describe('the engine', () => {
  it('runs a full collection between phases once tuned', () => {
    expect(fullCollectionsDuringCall(true)).toBe(1);
  });
  it('does nothing between phases where the process was not tuned (tests, a library user)', () => {
    expect(fullCollectionsDuringCall(false)).toBe(0);
  });
});
