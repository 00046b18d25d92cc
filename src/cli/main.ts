// commander wiring only, and the one place that turns errors into exit codes.
import { Command, CommanderError, Option } from 'commander';
import { Reported, TapedeckError } from '../errors.js';
import { renderers, type Format } from '../report/formats.js';
import type { Io } from './io.js';
import { Secrets } from '../util/redact.js';
import { tapedeckVersion } from '../version.js';
import { collect, common, documentOptions, planning, platformOptions, validateOptions } from './option-groups.js';

// Each command's modules load only when it runs: validate never loads the HTTP client, the planner or the emulator.
// (A dynamic import of plan's modules once measured slower in the benchmark, which started its clock after the CLI's
// static imports: it now loads them before, as it always did.)
const commands = {
  validate: () => import('./commands/validate.js'),
  plan: () => import('./commands/plan.js'),
  apply: () => import('./commands/apply.js'),
  show: () => import('./commands/show.js'),
  graph: () => import('./commands/graph.js'),
  export: () => import('./commands/export.js'),
  state: () => import('./commands/state.js'),
  import: () => import('./commands/import.js'),
  stateVersions: () => import('./commands/state-versions.js'),
  stateMigrate: () => import('./commands/state-migrate.js'),
  schema: () => import('./commands/schema.js'),
  emulator: () => import('./commands/emulator.js'),
  agent: () => import('./commands/agent.js'),
};

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

/**
 * --no-auto-apply as an option of its own (noAutoApply), not commander's negation of --auto-apply, whose last
 * spelling would win: report only must win whatever order the flags come in.
 */
function noAutoApply(): Option {
  const o = new Option('--no-auto-apply', 'never apply, whatever --auto-apply or the repository says');
  o.negate = false;
  return o;
}

export async function main(argv: string[], outside: Io, stop?: Promise<void>): Promise<number> {
  const io = maskingIo(outside);
  let code = 0;
  let format: Format = 'text';
  const debug = argv.includes('--debug');
  const program = new Command('tapedeck')
    .description("Keep a streaming platform's setup in git: validate, plan and apply it.")
    .version(tapedeckVersion(), '--version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showHelpAfterError(false)
    // The format a failure is reported in: the command's, as far as its flags say (a bad --format is text).
    .hook('preAction', (_, action) => {
      const { json, format: asked } = action.opts<{ json?: boolean; format?: string }>();
      format = json ? 'json' : asked && asked in renderers && asked !== 'github' ? (asked as Format) : 'text';
    });

  validateOptions(
    program
      .command('validate [dir]')
      .description('parse, schema-check and cross-check every document; sends no request'),
  ).action(async (dir, flags) => {
    code = await (await commands.validate()).validateCommand(dir, flags, io);
  });
  planning(
    common(program.command('plan [dir]').description('read the live state and print the changes apply would make')),
  )
    .option('--out <file>', 'also save the plan as JSON')
    .option('--detailed-exitcode', 'exit 2 when there are changes')
    .action(async (dir, flags) => {
      code = await (await commands.plan()).planCommand(dir, flags, io);
    });
  planning(common(program.command('apply [dir]').description('plan, confirm, then write')))
    .option('--yes', 'do not ask for confirmation')
    .option('--plan <file>', 'apply this saved plan (refused if the live state or the configuration moved since)')
    .option('--lock-timeout <seconds>', 'wait this long for another apply to the same state to finish (default 0)')
    .option('--all-or-nothing', 'write nothing when a change window holds any change (default: write what none holds)')
    .action(async (dir, flags) => {
      code = await (await commands.apply()).applyCommand(dir, flags, io);
    });
  program
    .command('show <file>')
    .description('print a saved plan (plan --out FILE) as plan would; sends nothing, needs no token')
    .option('--format <format>', 'output: text, markdown (for pull-request comments) or json')
    .option('--json', 'the plan JSON on stdout (same as --format json)')
    .option('--quiet', 'only the summary line')
    .action(async (file, flags) => {
      code = (await commands.show()).showCommand(file, flags, io);
    });
  const graph = program
    .command('graph [dir]')
    .description(
      'print the order apply would take as a diagram (Mermaid or Graphviz DOT): DIR planned as plan does, or a saved plan',
    );
  for (const o of platformOptions()) graph.addOption(o);
  planning(documentOptions(graph))
    .option('--plan <file>', 'draw this saved plan (plan --out FILE) instead: sends nothing, needs no token')
    .option('--format <format>', 'mermaid (default) or dot')
    .action(async (dir, flags) => {
      code = await (await commands.graph()).graphCommand(dir, flags, io);
    });
  common(
    program.command('export [dir]').description('write the live state of readable resources as documents (adoption)'),
  )
    .option('--id <kind=id>', 'also export this resource (repeatable), e.g. Policy=org1/organization', collect)
    .option('--project <id>', "list only this project's resources")
    .option(
      '--portable',
      'documents for another project: no server ids, the project and the ids of other resources as variables and references (vars.example.yaml lists them)',
    )
    .option('--force', 'no effect: export never overwrites a file (accepted for older scripts)')
    .action(async (dir, flags) => {
      code = await (await commands.export()).exportCommand(dir, flags, io);
    });
  common(
    program
      .command('import <address> <id> [dir]')
      .description("bind an existing resource to a document's address in the state (Terraform's import)"),
  )
    .option('--lock-timeout <seconds>', 'wait this long for an apply holding the state')
    .action(async (address, id, dir, flags) => {
      code = await (await commands.import()).importCommand(address, id, dir, flags, io);
    });
  const state = program.command('state').description('inspect or edit the state of an environment');
  common(state.command('list [dir]').description('the resources the state knows, with their ids')).action(
    async (dir, flags) => {
      code = await (await commands.state()).stateList(dir, flags, io);
    },
  );
  common(
    state.command('forget <address> [dir]').description('drop one resource from the state (e.g. one removed by hand)'),
  )
    .option('--lock-timeout <seconds>', 'wait this long for an apply holding the state')
    .action(async (address, dir, flags) => {
      code = await (await commands.state()).stateForget(address, dir, flags, io);
    });
  common(
    state
      .command('mv <old> <new> [dir]')
      .description('move a resource to another address of its kind in the state (a renamed document)'),
  )
    .option('--lock-timeout <seconds>', 'wait this long for an apply holding the state')
    .action(async (from, to, dir, flags) => {
      code = await (await commands.state()).stateMove(from, to, dir, flags, io);
    });
  common(
    state
      .command('history [dir]')
      .description('who wrote each version of the state, when, from where (database state)'),
  )
    .option('--limit <n>', 'show at most this many versions, newest first (default 50)')
    .action(async (dir, flags) => {
      code = await (await commands.stateVersions()).stateHistory(dir, flags, io);
    });
  common(state.command('pull [dir]').description('print the state JSON'))
    .option('--serial <n>', 'an earlier version, from the history (database state)')
    .action(async (dir, flags) => {
      code = await (await commands.stateVersions()).statePull(dir, flags, io);
    });
  common(
    state
      .command('push <file> [dir]')
      .description(
        'write a state file into the state (a file state into the database); never over a newer serial or another lineage',
      ),
  )
    .option('--lock-timeout <seconds>', 'wait this long for an apply holding the state')
    .option('--force', 'write it even over a newer serial, another lineage or environment')
    .action(async (file, dir, flags) => {
      code = await (await commands.stateVersions()).statePush(file, dir, flags, io);
    });
  common(
    state
      .command('migrate <from> [dir]')
      .description(
        'move a state (FROM: a file or postgres:// URL) to the environment and state this configuration uses now (--env, --state), rebinding it; nothing on the platform changes',
      ),
  )
    .option('--from-env <name>', "FROM's environment, for a database (default: --env)")
    .option('--lock-timeout <seconds>', 'wait this long for an apply holding either state')
    .action(async (from, dir, flags) => {
      code = await (await commands.stateMigrate()).stateMigrate(from, dir, flags, io);
    });
  const agent = program
    .command('agent')
    .description(
      'pull a repository and reconcile it every interval; /metrics, /healthz, /readyz, /status, /hooks/github',
    )
    .option('--repo <url>', 'the repository: https://, file:// or a local path')
    .option('--branch <name>', 'the branch to follow (default main)')
    .option(
      '--path <dir>',
      "a configuration's directory in the repository, or a glob of them (projects/*); repeatable (default .)",
      collect,
    )
    .option('--parallel <n>', 'configurations reconciled at once by this agent (several configurations; default 4)')
    .option('--interval <duration>', 'time between runs: 5m (default), 30s, 200ms, 1h')
    .option(
      '--full-every <n>',
      'every Nth run reads everything live (drift); the others only what changed (default 12)',
    )
    .option('--auto-apply', 'apply what each run plans (default: only report)')
    .addOption(noAutoApply())
    .option('--listen <host:port>', 'address of the HTTP listener (default 127.0.0.1:9464)')
    .option('--webhook-secret-file <file>', 'the GitHub webhook secret (else env TAPEDECK_WEBHOOK_SECRET)')
    .option(
      '--notify-file <file>',
      'notification URLs, one a line (# comments): each gets a JSON POST on drift, applied changes and failures',
    )
    .option('--notify <url>', 'a notification URL (repeatable; visible in ps: prefer --notify-file)', collect)
    .option('--repo-token-file <file>', "a token for --repo's https URL, given to git by a credential helper")
    .option('--log-format <format>', 'text (default) or json: one object per line');
  for (const o of platformOptions()) agent.addOption(o);
  documentOptions(agent).action(async (flags) => {
    code = await (await commands.agent()).agentCommand(flags, io, stop);
  });
  program
    .command('schema [kind]')
    .description('print the JSON Schema of a document kind (no kind: list them)')
    .action(async (kind) => {
      code = (await commands.schema()).schemaCommand(kind, io);
    });
  program
    .command('emulator')
    .description('run the local platform emulator')
    .option('--port <n>', 'port (0: any free one)', '8080')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--seed <file>', 'seed data (YAML or JSON)')
    .addOption(
      new Option('--token <token>', 'accepted bearer token (repeatable; default dev-token)').argParser(collect),
    )
    .option('--data <file>', 'persist the store in this file')
    .option('--latency <ms>', 'delay every response')
    .option('--fault-rate <r>', 'share of requests that fail (0..1)')
    .option('--fault-seed <n>', 'seed of the fault generator, for reproducible runs')
    .option('--fault-on <which>', 'all requests (default) or only writes')
    .option('--retry-after <seconds>', 'Retry-After of injected 429s', '1')
    .option('--max-page-size <n>', 'cap list pages below 1000, as the live API does')
    .option(
      '--rate-limit <rps>',
      'answer 429 past RPS requests a second (token bucket, burst RPS); /PREFIX=RPS limits the paths under PREFIX (repeatable)',
      collect,
    )
    .action(async (flags) => {
      code = await (await commands.emulator()).emulatorCommand(flags, io, stop);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? 0 : 1;
    }
    // Problems already printed in the chosen format are not printed again; any other failure is, in it too.
    if (!(e instanceof TapedeckError && e.printed))
      io.out(renderers[format].failure(e instanceof Reported ? e.errors : [e]));
    if (e instanceof Reported) return 1;
    if (e instanceof TapedeckError) {
      io.err(`error: ${e.line()}\n`);
      return 1;
    }
    io.err(
      `internal error: ${(e as Error).message}${debug ? `\n${(e as Error).stack}` : ' (run with --debug for details)'}\n`,
    );
    return 1;
  }
}
