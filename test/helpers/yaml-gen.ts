// Random YAML files for the differential test of the quick reader against `yaml` (test/unit/quick-yaml.test.ts): block
// and flow collections, every spelling of the core schema's scalars and of strings that look like them, quoting and
// escapes, block scalars, multi-line scalars, comments, anchors and aliases, tags, odd keys, directives, several
// documents. Some are not valid YAML, on purpose: the quick reader must leave those to `yaml`, which reports them.
import { seededRandom } from '../../src/emulator/server.js';

const WORDS = [
  'a',
  'plain',
  'with space',
  'x#y',
  'a:b',
  'http://h/x?q=1',
  'k-1',
  'é ü',
  '$x',
  '${var.x}',
  '-x',
  'x?',
  'x!',
  'a - b',
  "it's",
  'say "hi"',
  'a  b',
];
/** Words that are not plain scalars everywhere: in flow collections, or anywhere. */
const ODD_WORDS = [
  '%x',
  '@x',
  '`x',
  '?x',
  '*nope',
  'x ,y',
  'a]b',
  'a}b',
  '{x',
  '[x',
  '- x',
  'a: b',
  '|x',
  '>x',
  '!x',
  '&x',
  'x #y',
  '"x',
  "'x",
];
const NUMBERS = [
  '1',
  '-2',
  '+3',
  '007',
  '0o17',
  '0o8',
  '0x1F',
  '0xg',
  '0b101',
  '1_000',
  '1.5',
  '-.5',
  '+.5',
  '.5',
  '5.',
  '1e3',
  '1E+3',
  '1.5e-3',
  '.e3',
  '.inf',
  '-.Inf',
  '+.INF',
  '.nan',
  '.NaN',
  '.NAN',
  'nan',
  'inf',
  '12345678901234567890',
  '9007199254740993',
  '1e400',
  '-0',
  '0.0',
  '1:30',
  '2026-01-01',
  '2026-01-01T10:00:00Z',
  '0x_1',
  '+0x1',
  '-0o7',
  '1.',
  '00.5',
];
const CONSTANTS = [
  'true',
  'True',
  'TRUE',
  'tRue',
  'false',
  'False',
  'yes',
  'No',
  'on',
  'off',
  'y',
  'n',
  '~',
  'null',
  'Null',
  'NULL',
  'nULL',
];
const QUOTED = [
  "'single'",
  "'it''s'",
  "''",
  "'a\\nb'",
  '"double"',
  '""',
  '"tab\\there"',
  '"\\x41\\u00e9\\U0001F600"',
  '"\\"q\\" \\\\ \\/"',
  '"\\0\\a\\b\\e\\f\\r\\v\\N\\_\\L\\P\\ "',
  '"1"',
  "'true'",
  '"${var.x}"',
  '"\\x24{var.x}"',
  '"a: b"',
  "'# not'",
];
const TAGS = ['!!str ', '!!int ', '!!float ', '!!bool ', '!!null ', '!<tag:yaml.org,2002:str> '];
/** Tags outside the core schema, or the same one twice. */
const ODD_TAGS = ['!foo ', '!!binary ', '!!timestamp ', '!!set ', '!!str !!str ', '!e!x '];
const ODD_QUOTED = ['"\\q"', '"\\x4"', '"unclosed', "'unclosed", '"a"b"'];
const KEYS = ['a', 'b_c', 'kind', 'x-y', 'sp ace', '"q"', "'s'", '"a:b"', 'a#b', '$k'];
/** Keys that read as something other than a plain string, or that are special to JavaScript or to YAML 1.1. */
const ODD_KEYS = [
  '1',
  '0x10',
  '1.0',
  '-0',
  'true',
  'null',
  '~',
  '<<',
  '__proto__',
  'toString',
  '"__proto__"',
  '-',
  '1e3',
  '.nan',
  '"é"',
  'k:',
  '"1"',
  "''",
  'yes',
  '? a',
];

/** `plain`: mostly what configuration files hold (no anchors, tags or block scalars), to exercise the quick reader. */
export function yamlGenerator(seed: number, { plain = false } = {}) {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const chance = (p: number) => random() < p;
  /** how often a construct is malformed or odd: low, so most files are valid and compared value for value */
  const ODD = plain ? 0.002 : 0.005;
  /** how often an anchor, tag, block scalar or multi-line scalar appears */
  const RICH = plain ? 0.004 : 0.06;
  const anchors: string[] = [];
  let keyCount = 0;

  const props = (collection: boolean) => {
    let p = '';
    if (chance(RICH)) {
      const name = `a${anchors.length}`;
      anchors.push(name);
      p += `&${name} `;
    }
    if (chance(RICH / 2)) p += collection ? pick(['!!seq ', '!!map ']) : pick(TAGS);
    else if (chance(ODD)) p += pick(ODD_TAGS);
    return p;
  };
  const comment = () =>
    chance(0.15) ? pick([' # note', ' #x', ' #', '  # ${var.x}']) : chance(ODD) ? '#glued' : chance(0.03) ? '  ' : '';
  /** A scalar (or an alias), with its properties; `ind` is the indentation continuation lines need. */
  const scalar = (flow: boolean, ind: number): string => {
    if (anchors.length && chance(RICH)) return `*${pick(anchors)}`;
    const p = props(false);
    if (chance(ODD)) return p + pick([...ODD_WORDS, ...ODD_QUOTED, '*undefined']);
    const r = random();
    if (r < 0.3) return p + pick(flow ? WORDS.filter((w) => !/[{}[\],]/.test(w)) : WORDS);
    if (r < 0.55) return p + pick(NUMBERS);
    if (r < 0.7) return p + pick(CONSTANTS);
    if (r < 0.95 || !chance(RICH * 10)) return p + pick(QUOTED);
    const pad = ' '.repeat(ind + 1);
    return (
      p +
      (flow
        ? pick(['a:1', '"a":1', 'a :b', 'x', `"multi\n${pad}line"`])
        : pick([`one\n${pad}two`, `"multi\n${pad}line"`, `'multi\n\n${pad}para'`, `"join \\\n${pad}ed"`]))
    );
  };
  /** A key of a block mapping indented `ind` (an explicit `? key` ends with the indentation of its `:`). */
  const key = (ind: number): string => {
    if (chance(0.01)) return `? ${chance(0.5) ? flowCollection(1, ind) : scalar(false, ind)}\n${' '.repeat(ind)}`;
    if (chance(ODD)) return flowCollection(1, ind);
    if (chance(RICH + 0.01)) return pick(ODD_KEYS);
    if (chance(0.01)) return `${pick(KEYS)}${keyCount - 1}`.replace(/^(["'])(.*)\1(\d+)$/, '$1$2$3$1'); // maybe the key before
    return `${pick(KEYS)}${keyCount++}`.replace(/^(["'])(.*)\1(\d+)$/, '$1$2$3$1') + (chance(0.03) ? ' ' : '');
  };
  function flowCollection(depth: number, ind: number): string {
    const sp = chance(0.5) ? ' ' : '';
    const n = Math.floor(random() * 4);
    const items: string[] = [];
    const isMap = chance(0.5);
    for (let i = 0; i < n; i++) {
      const v = depth > 0 && chance(0.25) ? props(true) + flowCollection(depth - 1, ind) : scalar(true, ind);
      const k = chance(RICH + 0.01)
        ? pick(ODD_KEYS)
        : `${pick(KEYS)}${keyCount++}`.replace(/^(["'])(.*)\1(\d+)$/, '$1$2$3$1');
      // `:` may touch the value only after a quoted (JSON-like) key.
      const colon = /^["']/.test(k) ? pick([':', ': ', ' : ']) : pick([': ', ' : ']);
      if (!isMap) items.push(chance(0.05) ? `${k}: ${v}` : v);
      else items.push(chance(0.05) ? pick([k, `${k.replace(/["':]/g, '')}:${v}`]) : `${k}${colon}${v}`);
    }
    const body = items.join(pick([', ', ',', ' , '])) + (n && chance(0.1) ? ',' : '');
    return isMap ? `{${sp}${body}${sp}}` : `[${sp}${body}${sp}]`;
  }
  const blockScalar = (ind: number) => {
    const head = pick(['|', '|-', '|+', '>', '>-', '>+', '|2', '>1-']);
    const lines = Array.from(
      { length: 1 + Math.floor(random() * 3) },
      (_, i) =>
        ' '.repeat(ind + 2 + (i && chance(0.2) ? 1 : 0)) + pick([...WORDS, '---', '...', '# not a comment', '']),
    );
    return ` ${head}${comment()}\n${lines.join('\n')}\n`;
  };
  /** What follows `key:` or `-` (with its newline), for a node at depth `depth` whose parent is indented `ind`. */
  function after(depth: number, ind: number): string {
    const r = random();
    const step = pick([1, 2, 2, 2, 4]);
    if (depth > 0 && r < 0.2) return ` ${props(true)}`.trimEnd() + `${comment()}\n${mapping(depth - 1, ind + step)}`;
    if (depth > 0 && r < 0.35) return ` ${props(true)}`.trimEnd() + `${comment()}\n${sequence(depth - 1, ind + step)}`;
    if (r < 0.45) return ` ${props(true)}${flowCollection(2, ind)}${comment()}\n`;
    if (r < 0.45 + RICH) return blockScalar(ind);
    if (r < 0.47 + RICH) return `${comment()}\n`;
    return ` ${scalar(false, ind)}${comment()}\n`;
  }
  function mapping(depth: number, ind: number): string {
    let out = '';
    for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i++) {
      if (chance(0.05)) out += `${' '.repeat(Math.floor(random() * (ind + 2)))}# a comment\n`;
      if (chance(0.03)) out += '\n';
      const k = key(ind);
      // A sequence may sit at its key's own indentation.
      if (depth > 0 && chance(0.1)) out += `${' '.repeat(ind)}${k}:\n${sequence(depth - 1, ind)}`;
      else out += `${' '.repeat(ind)}${k}:${after(depth, ind)}`;
    }
    return out;
  }
  function sequence(depth: number, ind: number): string {
    let out = '';
    for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i++) {
      if (depth > 0 && chance(0.15)) out += `${' '.repeat(ind)}- ${mapping(depth - 1, ind + 2).trimStart()}`;
      else if (depth > 0 && chance(0.05)) out += `${' '.repeat(ind)}- ${sequence(depth - 1, ind + 2).trimStart()}`;
      else out += `${' '.repeat(ind)}-${after(depth, ind)}`;
    }
    return out;
  }
  /** One document's text (without a `---` line before it). */
  function document(): string {
    anchors.length = 0;
    const r = random();
    const body = chance(0.02)
      ? pick(['', '# only a comment\n', '~\n'])
      : r < 0.6
        ? mapping(3, 0)
        : r < 0.8
          ? sequence(3, 0)
          : r < 0.9
            ? `${flowCollection(3, 0)}\n`
            : `${scalar(false, 0)}\n`;
    return (chance(0.1) ? '# leading comment\n' : '') + body;
  }
  /** A file of one to four documents, and its parts: each document with its directives and markers, a file too. */
  function file(): { text: string; parts: string[] } {
    const directives = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
      chance(RICH / 2) ? pick(['%YAML 1.2\n', '%YAML 1.1\n', '%TAG !e! tag:example.com,2000:\n']) : '',
    );
    const parts = directives.map((directive, i) => {
      const start = i > 0 || directive || chance(0.3) ? `${directive}---${chance(0.1) ? ' # start' : ''}\n` : '';
      // Directives may follow a document only after its end marker.
      return start + document() + (directives[i + 1] || chance(RICH) ? '...\n' : '');
    });
    return { text: parts.join(''), parts };
  }
  return { file, document, random };
}
