// The pure parts of an agent following several configurations: which directories the operator's --path values
// find at a commit, which configurations a change touches, and how the configurations are shared between replicas.
import { describe, expect, it } from 'vitest';
import { configurationsAt, parsePaths, singleConfiguration, touched } from '../../src/agent/configurations.js';
import { shares } from '../../src/agent/shares.js';

const files = [
  'README.md',
  'projects/alpha/tapedeck.yaml',
  'projects/alpha/offers.yaml',
  'projects/beta/tapedeck.yaml',
  'projects/beta/sub/tapedeck.yaml',
  'projects/notes/todo.md',
  'teams/red/prod/tapedeck.yaml',
  'teams/blue/prod/tapedeck.yaml',
];

describe('configurations found by --path', () => {
  it.each([
    [['projects/*'], ['projects/alpha', 'projects/beta'], []],
    [['./projects/*/'], ['projects/alpha', 'projects/beta'], []],
    [['projects/**'], ['projects/alpha', 'projects/beta'], ['projects/beta/sub']],
    [['teams/*/prod'], ['teams/blue/prod', 'teams/red/prod'], []],
    [['projects/alpha', 'teams/r?d/prod'], ['projects/alpha', 'teams/red/prod'], []],
    [['projects/notes'], ['projects/notes'], []],
    [['projects/*', 'projects/alpha'], ['projects/alpha', 'projects/beta'], []],
    [['.', 'projects/*'], ['.'], ['projects/alpha', 'projects/beta']],
    [['nothing/*'], [], []],
  ])('%j finds %j (refused: %j)', (paths, dirs, refused) => {
    const found = configurationsAt(parsePaths(paths), files);
    expect(found.dirs).toEqual(dirs);
    expect(found.refused.map((r) => r.dir)).toEqual(refused);
  });

  it.each([['../x'], ['/abs'], ['a//b'], ['a/../b']])('%s is refused', (p) => {
    expect(() => parsePaths([p])).toThrow(/--path is a directory inside the repository/);
  });

  it('one directory alone is the single-configuration agent; a glob or two directories are not', () => {
    expect(singleConfiguration(parsePaths([]))).toBe(true);
    expect(singleConfiguration(parsePaths(['platform']))).toBe(true);
    expect(singleConfiguration(parsePaths(['projects/*']))).toBe(false);
    expect(singleConfiguration(parsePaths(['a', 'b']))).toBe(false);
  });

  it('a change touches the configurations with a changed file below them', () => {
    const dirs = ['projects/alpha', 'projects/beta', 'projects/betamax'];
    expect(touched(dirs, ['projects/beta/x.yaml'])).toEqual(['projects/beta']);
    expect(touched(dirs, ['README.md', 'projects/betamax/tapedeck.yaml'])).toEqual(['projects/betamax']);
    expect(touched(['.'], ['README.md'])).toEqual(['.']);
    expect(touched(dirs, [])).toEqual([]);
  });
});

describe('shares between replicas', () => {
  const configs = Array.from({ length: 20 }, (_, i) => `projects/c${String(i).padStart(2, '0')}`);
  const count = (m: Map<string, string>) => {
    const n = new Map<string, number>();
    for (const r of m.values()) n.set(r, (n.get(r) ?? 0) + 1);
    return [...n.values()].sort();
  };

  it.each([
    [20, 3, [6, 7, 7]],
    [20, 1, [20]],
    [10, 4, [2, 2, 3, 3]],
    [2, 3, [1, 1]],
    [0, 2, []],
  ])('%i configurations over %i replicas: shares %j', (c, r, expected) => {
    const replicas = Array.from({ length: r }, (_, i) => `replica-${i}`);
    const m = shares(configs.slice(0, c), replicas);
    expect(m.size).toBe(c);
    expect(count(m)).toEqual(expected);
  });

  it('every replica computes the same shares, whatever order it lists them in', () => {
    const a = shares(configs, ['x', 'y', 'z']);
    const b = shares([...configs].reverse(), ['z', 'x', 'y']);
    expect([...b.entries()].sort()).toEqual([...a.entries()].sort());
  });

  it('a replica leaving moves only its own configurations, and a replica joining takes a fair share', () => {
    const three = shares(configs, ['x', 'y', 'z']);
    const two = shares(configs, ['x', 'y']);
    const kept = configs.filter((c) => three.get(c) !== 'z' && two.get(c) === three.get(c));
    // All of z's go elsewhere; of x's and y's, the bounded loads move at most a few to even the shares.
    expect(configs.filter((c) => three.get(c) === 'z').every((c) => two.get(c) !== 'z')).toBe(true);
    expect(kept.length).toBeGreaterThanOrEqual(11);
    expect(count(two)).toEqual([10, 10]);
  });

  it('no replica: nothing is assigned', () => {
    expect(shares(configs, []).size).toBe(0);
  });
});
