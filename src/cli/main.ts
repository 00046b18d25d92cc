// The CLI's entry: the program (its commands in program.ts) run on one command line, and the one place that turns
// errors into exit codes.
import { Command, CommanderError } from 'commander';
import { Reported, TapedeckError } from '../errors.js';
import { renderers, type Format } from '../report/formats.js';
import type { Io } from './io.js';
import { Secrets } from '../util/redact.js';
import { tapedeckVersion } from '../version.js';
import { addCommands } from './program.js';

/**
 * The outside world with every output masked: whatever path a secret took towards stdout or stderr (a server's
 * echo, a document, an error message), it stops here. Secrets are registered as they are read (options.ts).
 */
function maskingIo(io: Io): Io {
  const secrets = new Secrets();
  return {
    ...io,
    out: (t) => io.out(secrets.mask(t)),
    err: (t) => io.err(secrets.mask(t)),
    secret: (v) => void secrets.add(v),
    mask: (t) => secrets.mask(t),
  };
}

/** The root command: its version, its output through `io`, and the failure format each command's flags ask for. */
function rootCommand(io: Io, formatAsked: (f: Format) => void): Command {
  return (
    new Command('tapedeck')
      .description("Keep a streaming platform's setup in git: validate, plan and apply it.")
      .version(tapedeckVersion(), '--version', 'print the version')
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
      .showHelpAfterError(false)
      // The format a failure is reported in: the command's, as far as its flags say (a bad --format is text).
      .hook('preAction', (_, action) => {
        const { json, format: asked } = action.opts<{ json?: boolean; format?: string }>();
        formatAsked(json ? 'json' : asked && asked in renderers && asked !== 'github' ? (asked as Format) : 'text');
      })
  );
}

/** A failure's exit code, once it is printed: in the command's format, then as one line on stderr. */
function failureCode(e: unknown, io: Io, format: Format, debug: boolean): number {
  if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1; // commander printed it
  // Problems already printed in the chosen format are not printed again; any other failure is, in it too.
  if (!(e instanceof TapedeckError && e.printed))
    io.out(renderers[format].failure(e instanceof Reported ? e.errors : [e]));
  if (e instanceof Reported) return 1;
  if (e instanceof TapedeckError) io.err(`error: ${e.line()}\n`);
  else
    io.err(
      `internal error: ${(e as Error).message}${debug ? `\n${(e as Error).stack}` : ' (run with --debug for details)'}\n`,
    );
  return 1;
}

/** Runs one command line; its exit code. `stop` ends a service (emulator, agent) that would otherwise run on. */
export async function main(argv: string[], outside: Io, stop?: Promise<void>): Promise<number> {
  const io = maskingIo(outside);
  let code = 0;
  let format: Format = 'text';
  const program = rootCommand(io, (f) => (format = f));
  addCommands(program, { io, stop, done: (c) => (code = c) });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    return failureCode(e, io, format, argv.includes('--debug'));
  }
}
