// A database state location read from its URL: the password from the URL or PGPASSWORD, the schema, the URL as
// shown (password masked), the problems said without the URL; and `${env.NAME}` in the project file's `state:`.
import { describe, expect, it } from 'vitest';
import { fillEnv, parsePgUrl, pgSecrets } from '../../src/state/postgres-url.js';

describe('parsePgUrl', () => {
  it.each([
    [
      'postgres://ci:s3cret@db.example.com:5432/infra?schema=tapedeck',
      {},
      {
        password: 's3cret',
        schema: 'tapedeck',
        shown: 'postgres://ci:***@db.example.com:5432/infra?schema=tapedeck',
        connect: 'postgres://ci:s3cret@db.example.com:5432/infra',
      },
    ],
    [
      'postgresql://ci@db/infra',
      { PGPASSWORD: 'from-env' },
      {
        password: 'from-env',
        schema: 'tapedeck',
        shown: 'postgres://ci@db/infra?schema=tapedeck',
        connect: 'postgres://ci:from-env@db/infra',
      },
    ],
    [
      'postgres://ci:p%40ss%3Aw%2Frd@db/infra?sslmode=require&schema=team_a',
      {},
      {
        password: 'p@ss:w/rd',
        schema: 'team_a',
        shown: 'postgres://ci:***@db/infra?sslmode=require&schema=team_a',
        connect: 'postgres://ci:p%40ss%3Aw%2Frd@db/infra?sslmode=require',
      },
    ],
    [
      'postgres://ci@db/infra?sslpassword=keypass',
      {},
      {
        password: undefined,
        shown: 'postgres://ci@db/infra?sslpassword=***&schema=tapedeck',
        connect: 'postgres://ci@db/infra?sslpassword=keypass',
      },
    ],
    [
      'postgres://db/infra',
      {},
      { password: undefined, shown: 'postgres://db/infra?schema=tapedeck', connect: 'postgres://db/infra' },
    ],
  ])('%s', (url, env, expected) => {
    expect(parsePgUrl(url, '--state', env)).toMatchObject(expected);
  });

  it.each([
    [
      'postgres://ci:s3cret@db:notaport/x',
      '--state is not a valid PostgreSQL URL (postgres://user@host:5432/database?schema=tapedeck; percent-encode special characters in the password)',
    ],
    [
      'postgres://ci:s3cret@db/x?schema=Team-A',
      '--state: schema="Team-A" must be a plain lower-case name (letters, digits, _; at most 63)',
    ],
    ['postgres://ci:s3cret@db/x#frag', '--state: a PostgreSQL URL has no #fragment'],
    ['postgres://ci:%E0%A4%A@db/x', '--state: the password in the URL is not valid percent-encoding'],
  ])('%s is refused without quoting it', (url, message) => {
    expect(() => parsePgUrl(url, '--state', {})).toThrow(message);
  });

  it('names every secret the URL holds', () => {
    const url = 'postgres://ci:s3cret@db/x?sslpassword=keypass';
    expect(pgSecrets(url, parsePgUrl(url, 'x', {}))).toEqual(['s3cret', 'keypass']);
  });
});

describe('fillEnv', () => {
  it.each([
    ['postgres://ci:${env.DB_PW}@db/x', { DB_PW: 'a@b/c' }, { value: 'postgres://ci:a%40b%2Fc@db/x' }],
    ['${env.DATABASE_URL}', { DATABASE_URL: 'postgres://u:p@h/d' }, { value: 'postgres://u:p@h/d' }],
    ['postgres://ci:${env.NOPE}@db/x', {}, { problem: 'environment variable NOPE is not set (${env.NOPE})' }],
    ['postgres://ci:${var.pw}@db/x', {}, { problem: '${var.pw}: only ${env.NAME} can be used in a state URL' }],
  ])('%s', (text, env, expected) => {
    expect(fillEnv(text, env)).toMatchObject(expected);
  });
});
