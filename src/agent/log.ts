// The agent's log: one line per event on stderr, as text for people or one JSON object per line for a log pipeline
// (--log-format json). Every line passes the run's secret masking (the Io's err), so no token, password or webhook
// URL can reach it; a line holds no character that would move or hide text (jsonLine escapes them).
import { jsonLine, printable } from '../schema/values.js';
import type { Io } from '../types.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Fields = Record<string, string | number | boolean | null | undefined | object>;

export interface Log {
  (level: Level, msg: string, fields?: Fields): void;
}

const quoted = (v: unknown) => {
  const s = typeof v === 'string' ? v : jsonLine(v);
  return /^[^\s"=]*$/.test(s) && s === printable(s) ? s : jsonLine(s);
};

export function makeLog(io: Io, format: 'text' | 'json', debug: boolean): Log {
  return (level, msg, fields = {}) => {
    if (level === 'debug' && !debug) return;
    const time = new Date().toISOString();
    const set = Object.entries(fields).filter(([, v]) => v !== undefined);
    if (format === 'json') {
      io.err(`${jsonLine({ time, level, msg, ...Object.fromEntries(set) })}\n`);
    } else {
      io.err(`${time} ${level} ${msg}${set.map(([k, v]) => ` ${k}=${quoted(v)}`).join('')}\n`);
    }
  };
}
