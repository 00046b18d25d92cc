// One reader of durations for tapedeck.yaml's windows, the agent's --interval and the flags that take seconds: the
// same units everywhere, and a fraction (1.5h), which no unit takes, refused with the whole-unit spelling to write.
import { describe, expect, it } from 'vitest';
import { durationProblem, parseDuration } from '../../src/util/duration.js';
import { wholeSeconds } from '../../src/run/flag-values.js';
import { parseDuration as agentInterval } from '../../src/agent/settings.js';

describe('durations, with what to write for a fraction', () => {
  it.each([
    ['1.5h', '1h30m'],
    ['1.5s', '1s500ms'],
    ['0.5m', '30s'],
    ['2.25d', '2d6h'],
    ['.5h', '30m'],
    ['1.0001s', undefined],
    ['2 hours', undefined],
    ['', undefined],
  ])('%j: the problem names %j', (text, written) => {
    const problem = durationProblem(text);
    expect(problem).toMatch(/is not a duration/);
    if (written) expect(problem).toContain(`write ${written}`);
    else expect(problem).not.toContain('write');
  });
  it.each([
    ['500ms', 500],
    ['1s500ms', 1500],
    ['1m5ms', 60_005],
  ])('%j is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));
});

describe('flags that take seconds', () => {
  it.each([
    ['90', 90],
    ['90s', 90],
    ['2m', 120],
    ['1h30m', 5400],
  ])('--deadline %j is %d s', (raw, s) => expect(wholeSeconds('--deadline', raw, 3600)).toBe(s));
  it.each([
    ['1.5m', /--deadline takes whole seconds of at least 1 \(such as 90, 90s or 2m\), not "1\.5m": write 1m30s$/],
    ['1.5s', /whole seconds of at least 1 \(such as 90, 90s or 2m\), not "1\.5s"$/],
    ['1.5', /not "1\.5"/],
    ['1500ms', /whole seconds/],
    ['0', /at least 1/],
    ['soon', /not "soon"$/],
  ])('--deadline %j is refused, saying what to write', (raw, message) => {
    expect(() => wholeSeconds('--deadline', raw, 3600)).toThrow(message);
  });
  it('an absent flag is its default', () => expect(wholeSeconds('--deadline', undefined, 3600)).toBe(3600));
});

describe("the agent's --interval", () => {
  it.each([
    ['1.5m', /--interval must be a duration of at least 100ms such as 30s, 5m or 1h, not "1\.5m": write 1m30s/],
    ['50ms', /at least 100ms/],
  ])('%j is refused, saying what to write', (raw, message) => {
    expect(() => agentInterval('--interval', raw)).toThrow(message);
  });
  it('takes days too, as the windows do', () => expect(agentInterval('--interval', '1d')).toBe(86_400_000));
});
