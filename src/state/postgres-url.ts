// A PostgreSQL state location: the URL as given (`postgres://user[:password]@host:5432/db?schema=tapedeck`), the
// password it carries or PGPASSWORD's, and the URL as it may be shown (password masked). Loaded by every command
// that builds its options, so it never imports `pg`.
import { UserError } from '../errors.js';

export interface PgLocation {
  /** what the client connects with: the URL without `schema`, with the password in it (never shown) */
  connect: string;
  /** the password, from the URL or PGPASSWORD, to register as a secret; undefined: pg's own (~/.pgpass) */
  password?: string;
  /** the schema holding tapedeck's tables */
  schema: string;
  /** the URL as shown in messages and plans: the password masked, never the real one */
  shown: string;
}

export const isPostgresUrl = (s: string) => /^postgres(ql)?:\/\//i.test(s);

/** A scheme (two letters at least: `C:` is a Windows drive), and whether `//` follows it. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):(\/\/)?/;
/** The password of something shaped like `[scheme:][//]user:password@host`. */
const LOOSE_PASSWORD = /^(?:[A-Za-z][A-Za-z0-9+.-]+:)?(?:\/\/)?[^:/@\s]*:([^@\s]*)@/;

/**
 * Why `raw`, which is not a postgres:// or postgresql:// URL, still looks like a database URL (a mistyped one:
 * taken as a file path it would plan against an empty state and print its password); undefined: a path.
 */
export function mistypedUrl(raw: string): string | undefined {
  if (isPostgresUrl(raw)) return undefined;
  const m = SCHEME.exec(raw);
  const scheme = m?.[1];
  if (scheme && m[2])
    return `${scheme}:// is not a PostgreSQL URL scheme: write postgres:// or postgresql:// (postgres://user@host:5432/database)`;
  if (scheme && /^postgres(ql)?$/i.test(scheme))
    return `${scheme}: must be followed by // and the host (postgres://user@host:5432/database)`;
  if (scheme && /pg|postgre|sql/i.test(scheme))
    return `${scheme}: is not a PostgreSQL URL scheme: write postgres:// or postgresql:// (postgres://user@host:5432/database)`;
  if (LOOSE_PASSWORD.test(raw))
    return 'looks like a database URL without its scheme: write postgres:// before it (postgres://user@host:5432/database)';
  return undefined;
}

/** The password a mistyped URL may hold (as written and decoded), to mask before anything can print it. */
export function loosePasswords(raw: string): string[] {
  const p = LOOSE_PASSWORD.exec(raw)?.[1];
  if (!p) return [];
  try {
    return [p, decodeURIComponent(p)];
  } catch {
    return [p];
  }
}

/** `schema` names a PostgreSQL schema: written into SQL as a quoted identifier, so only plain names are taken. */
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;
/** Query parameters that hold a secret of their own (libpq's `password`, the client key's `sslpassword`). */
const SECRET_PARAMS = new Set(['password', 'sslpassword']);
export const MASK = '***';

/**
 * The location named by `raw`; `from` says where it came from (`--state`, TAPEDECK_STATE_URL, tapedeck.yaml) in a
 * message. A message never quotes the URL itself: it may hold the password.
 */
export function parsePgUrl(raw: string, from: string, env: NodeJS.ProcessEnv): PgLocation {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UserError(
      `${from} is not a valid PostgreSQL URL (postgres://user@host:5432/database?schema=tapedeck; percent-encode special characters in the password)`,
    );
  }
  if (url.hash) throw new UserError(`${from}: a PostgreSQL URL has no #fragment`);
  const schema = url.searchParams.get('schema') ?? 'tapedeck';
  if (!SCHEMA.test(schema))
    throw new UserError(
      `${from}: schema=${JSON.stringify(schema)} must be a plain lower-case name (letters, digits, _; at most 63)`,
    );
  let password: string | undefined;
  try {
    password = url.password ? decodeURIComponent(url.password) : env.PGPASSWORD || undefined;
  } catch {
    throw new UserError(`${from}: the password in the URL is not valid percent-encoding`);
  }
  const params = [...url.searchParams].filter(([k]) => k !== 'schema');
  const query = (mask: boolean) => {
    const q = new URLSearchParams(params.map(([k, v]) => [k, mask && SECRET_PARAMS.has(k) ? MASK : v]));
    return q.size ? `?${q}` : '';
  };
  const host = `${url.host}${url.pathname}`;
  const user = url.username;
  const connectUser = password !== undefined ? `${user}:${encodeURIComponent(password)}@` : user ? `${user}@` : '';
  const shownUser = url.password ? `${user}:${MASK}@` : user ? `${user}@` : '';
  const shownQuery = query(true);
  return {
    connect: `postgres://${connectUser}${host}${query(false)}`,
    password,
    schema,
    shown: `postgres://${shownUser}${host}${shownQuery}${shownQuery ? '&' : '?'}schema=${schema}`,
  };
}

/** Every secret a location holds: its password (the URL's or PGPASSWORD's) and its secret query parameters. */
export function pgSecrets(raw: string, loc: PgLocation): string[] {
  return [...new Set([...(loc.password ? [loc.password] : []), ...secretsInUrl(raw)])];
}

/** The secrets written in the URL itself: its password (as written and decoded) and its secret query parameters. */
export function secretsInUrl(raw: string): string[] {
  const out: string[] = [];
  try {
    const url = new URL(raw);
    if (url.password) out.push(url.password, decodeURIComponent(url.password));
    for (const [k, v] of url.searchParams) if (SECRET_PARAMS.has(k) && v) out.push(v);
    // ...and a secret parameter as written, still percent-encoded (as the command line and a log show it)
    for (const pair of url.search.slice(1).split('&')) {
      const [k, v] = pair.split('=');
      if (v && SECRET_PARAMS.has(decodeURIComponent(k))) out.push(v);
    }
  } catch {
    /* not a URL (parsePgUrl refused it), or a password that is not percent-encoding (refused there too) */
  }
  return [...new Set(out)];
}

/**
 * `${env.NAME}` in the project file's `state:` URL, filled in from the environment: a value inside the URL is
 * percent-encoded (a password may hold `@`, `:` or `/`); a value that is the whole `state:` is taken as it is.
 * Returns the URL, or the problem.
 */
export function fillEnv(text: string, env: NodeJS.ProcessEnv): { value?: string; problem?: string } {
  const whole = /^\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text);
  let problem: string | undefined;
  const take = (name: string) => {
    const v = env[name];
    if (v === undefined) problem ??= `environment variable ${name} is not set (\${env.${name}})`;
    return v ?? '';
  };
  if (whole) return { value: take(whole[1]), problem };
  const value = text.replace(/\$\{([^}]*)\}/g, (all, expr: string) => {
    const m = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
    if (!m) {
      problem ??= `\${${expr}}: only \${env.NAME} can be used in a state URL`;
      return all;
    }
    return encodeURIComponent(take(m[1]));
  });
  return { value, problem };
}
