// A JSON file read in pieces (json-pieces.ts, the state file's reader): it answers what JSON.parse of the whole
// text gives, value or error, whether it could read the file in pieces or had to parse the whole text from the
// same open file (a file replaced or removed meanwhile is never read twice). Every case is read with buffers of 1,
// 7 and 4,096 bytes, so that each value also arrives split over several reads.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { stateText } from '../../src/state/document.js';
import { State } from '../../src/state/state.js';
import { readJsonFile, TooBig } from '../../src/util/json-pieces.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('tapedeck-json-pieces-');
let n = 0;
const file = (text: string) => {
  const f = join(dir, `f${n++}.json`);
  writeFileSync(f, text);
  return f;
};

const many = JSON.stringify(
  {
    format_version: 1,
    resources: Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [
        `Offer/o${i}`,
        { kind: 'Offer', id: `o${i}`, fields: { name: `Offer ${i}` } },
      ]),
    ),
  },
  null,
  2,
);

const same: Array<[string, string]> = [
  ['a state as tapedeck writes it', many],
  [
    'compact, no white space',
    '{"format_version":1,"serial":2,"resources":{"Vod/a":{"kind":"Vod","id":"v"},"Vod/b":{"kind":"Vod"}}}',
  ],
  [
    'white space of every kind',
    ' \r\n\t{ "resources" :\n{ "Vod/a" :\t{ "kind" : "Vod" } ,"Vod/b":{"kind":"Vod"}\n}\r\n, "serial" : 3 }\n\n',
  ],
  [
    'brackets, braces, quotes and escapes inside strings',
    String.raw`{"resources":{"Banner/a":{"kind":"Banner","fields":{"t":"}]{[\"\\","u":"\\\"}"}},"Banner/\"b\\":{"kind":"Banner"}},"x":"{"}`,
  ],
  [
    'escaped keys and text beyond ASCII',
    '{"resources":{"Banner/\\u00e4 ü":{"kind":"Banner","fields":{"name":"日本 ✓"}}},"l\\u0069neage":"x"}',
  ],
  [
    'nested arrays and objects in an entry',
    '{"resources":{"Event/z":{"kind":"Event","existing":["e1",["e2",{"a":[[]]}]],"fields":{"n":-1.5e3,"t":true,"f":false,"z":null}}}}',
  ],
  [
    'scalars of every kind at the top',
    '{"a":1,"b":-0.5E+2,"c":true,"d":false,"e":null,"f":"s","g":[1,2],"h":{},"resources":{}}',
  ],
  ['an empty object', '{}'],
  ['resources empty', '{"format_version":1,"resources":{}}'],
  ['resources not an object (the state check refuses it later)', '{"resources":[1,2]}'],
  [
    'a key twice: the last value wins, in the first place',
    '{"serial":1,"resources":{"Vod/a":{"kind":"Vod","id":"1"},"Vod/a":{"kind":"Vod","id":"2"}},"serial":2}',
  ],
];

/** Texts the pieces reader gives up on: what JSON.parse says of the whole text, a value or an error. */
const whole: Array<[string, string]> = [
  ['not JSON at all', 'format_version: 1'],
  ['empty', ''],
  ['a list at the top', '[{"resources":{}}]'],
  ['a string at the top', '"{}"'],
  ['a byte order mark first', '\ufeff{"resources":{}}'],
  ['a comma too many', '{"resources":{"Vod/a":{"kind":"Vod"},}}'],
  ['a comma too many at the top', '{"resources":{},}'],
  ['a missing comma', '{"a":1 "b":2}'],
  ['a missing colon', '{"a" 1}'],
  ['unclosed', '{"resources":{"Vod/a":{"kind":"Vod"}'],
  ['an unclosed string', '{"resources":{"Vod/a":{"kind":"Vod}}}'],
  ['mismatched brackets', '{"resources":{"Vod/a":{"kind":"Vod"]}}'],
  ['a bad escape', '{"resources":{"Vod/a":{"kind":"V\\od"}}}'],
  ['a bare word', '{"a":yes}'],
  ['text after the object', '{"resources":{}} {}'],
  ['a key that is not a string', '{1:2}'],
  ['__proto__ as a key (left to JSON.parse)', '{"resources":{"__proto__":{"kind":"Vod"}}}'],
];

describe('a JSON object read in pieces', () => {
  it.each(same)('%s: what JSON.parse gives', (_name, text) => {
    const f = file(text);
    for (const chunk of [1, 7, 4096]) {
      const read = readJsonFile(f, 'resources', 1e9, chunk);
      expect(read, `buffer of ${chunk}`).toEqual(JSON.parse(text));
      expect(JSON.stringify(read)).toBe(JSON.stringify(JSON.parse(text)));
    }
  });
  it.each(whole)('%s: what JSON.parse of the whole text gives', (_name, text) => {
    const f = file(text);
    let expected: { value?: unknown; error?: string };
    try {
      expected = { value: JSON.parse(text) };
    } catch (e) {
      expected = { error: (e as SyntaxError).message };
    }
    for (const chunk of [1, 7, 4096]) {
      let read: { value?: unknown; error?: string };
      try {
        read = { value: readJsonFile(f, 'resources', 1e9, chunk) };
      } catch (e) {
        expect(e, `buffer of ${chunk}`).toBeInstanceOf(SyntaxError);
        read = { error: (e as SyntaxError).message };
      }
      expect(read, `buffer of ${chunk}`).toEqual(expected);
    }
  });
  it('gives up past the bound with TooBig, reading the whole text too', () => {
    const text = `{"resources":{"Vod/a":{"kind":"Vod"},}, "pad": "${'x'.repeat(2000)}"}`;
    expect(() => readJsonFile(file(text), 'resources', 1000, 64)).toThrow(TooBig);
  });
  it('stops past the bound with TooBig', () => {
    expect(() => readJsonFile(file(many), 'resources', 1000, 64)).toThrow(TooBig);
    expect(readJsonFile(file(many), 'resources', many.length, 64)).toEqual(JSON.parse(many));
  });
  it('reads a pipe whole, once', () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `printf '%s' '${many}' > ${fifo}`]);
    try {
      expect(readJsonFile(fifo, 'resources', 1e9)).toEqual(JSON.parse(many));
    } finally {
      writer.kill();
    }
  });
  it("refuses a directory with the file system's error", () => {
    expect(() => readJsonFile(dir, 'resources', 1e9)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });
});

// Why the state file has a reader of its own: a large state is never one string in memory (a state of 100,000
// resources is tens of MB of text, which would stay in the heap until a full collection). So the state as tapedeck
// writes it is read entry by entry: no text handed to JSON.parse is more than one entry, and never the whole file.
describe("the state file's reader", () => {
  it('never parses a state as tapedeck writes it whole, only entry by entry', () => {
    const entry = (i: number) => ({ kind: 'Offer', id: `o${i}`, fields: { name: `Offer ${i}`, priority: i } });
    const resources = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`Offer/o${i}`, entry(i)]));
    const data = { format_version: 1, lineage: 'l', serial: 3, resources };
    const f = join(dir, 'pieces.state.json');
    writeFileSync(f, [...stateText(data)].join(''));
    const parsed: number[] = [];
    const parse = JSON.parse;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver) => {
      parsed.push(text.length);
      return parse(text, reviver);
    });
    let state: State;
    try {
      state = State.load(f);
    } finally {
      spy.mockRestore();
    }
    expect(state.entry('Offer/o1999')).toMatchObject({ kind: 'Offer', id: 'o1999', fields: { priority: 1999 } });
    expect(Object.keys(state.data.resources)).toHaveLength(2000);
    // Every piece parsed is one entry (some 150 characters) or a top-level scalar; the file is about 300,000.
    expect(Math.max(...parsed)).toBeLessThan(200);
  });
});
