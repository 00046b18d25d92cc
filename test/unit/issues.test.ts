// The issue renderings validate prints: GitHub annotations escaped as the Actions toolkit escapes them, JSON with
// nulls where an issue has no place, Markdown cut before GitHub's comment limit.
import { describe, expect, it } from 'vitest';
import { issuesGithub, issuesJson, issuesMarkdown } from '../../src/report/issues.js';
import type { Issue } from '../../src/types.js';

const issue = (over: Partial<Issue> = {}): Issue => ({
  file: 'a.yaml',
  pos: { line: 3, col: 5 },
  message: 'bad',
  severity: 'error',
  ...over,
});

describe('issue renderings', () => {
  it('github: % CR LF escaped in the message; , and : too in properties; one line per issue', () => {
    const out = issuesGithub({
      issues: [issue({ file: 'dir,x:y/100%.yaml', message: '50% off\r\n::error::forged, a:b' })],
    }).out;
    expect(out).toBe('::error file=dir%2Cx%3Ay/100%25.yaml,line=3,col=5::50%25 off%0D%0A::error::forged, a:b\n');
    expect(out.split('\n')).toHaveLength(2);
  });

  it('github: a warning, and an issue without a position (the file alone)', () => {
    const out = issuesGithub({
      issues: [issue({ severity: 'warning' }), issue({ file: 'tapedeck.yaml', pos: undefined })],
      documents: 1,
    }).out;
    expect(out).toBe('::warning file=a.yaml,line=3,col=5::bad\n::error file=tapedeck.yaml::bad\n');
  });

  it('json: sorted by file, line and column; null where there is no place or pointer', () => {
    const r = JSON.parse(
      issuesJson({ issues: [issue({ pos: { line: 3, col: 9 } }), issue({ file: '0.yaml', pos: undefined }), issue()] })
        .out,
    );
    expect(
      r.issues.map((i: { file: string; line: number | null; column: number | null; pointer: null }) => [
        i.file,
        i.line,
        i.column,
        i.pointer,
      ]),
    ).toEqual([
      ['0.yaml', null, null, null],
      ['a.yaml', 3, 5, null],
      ['a.yaml', 3, 9, null],
    ]);
    expect(r).toMatchObject({ valid: false, summary: { errors: 3, warnings: 0 } });
    expect(r.summary).not.toHaveProperty('documents');
  });

  it('markdown: text from documents shows as text; past the limit the rest is counted, not shown', () => {
    const many = Array.from({ length: 500 }, (_, i) =>
      issue({ pos: { line: i + 1, col: 1 }, message: `<b>${i}</b> | *x*` }),
    );
    const out = issuesMarkdown({ issues: many }, 5000).out;
    expect(out.length).toBeLessThanOrEqual(5000);
    expect(out).toContain('| ❌ | `a.yaml:1:1` | &lt;b&gt;0&lt;/b&gt; \\| \\*x\\* |');
    expect(out).toMatch(/> ✂️ \d+ more not shown: the comment would pass GitHub's size limit\./);
  });
});
