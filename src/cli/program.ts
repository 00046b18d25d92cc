// The commands and their flags, as commander declares them: each command's action loads its module and hands its
// exit code to `done`. main.ts makes the program and turns its failures into exit codes.
import { Command, Option } from 'commander';
import type { Io } from './io.js';
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
  budget: () => import('./commands/budget.js'),
  import: () => import('./commands/import.js'),
  stateVersions: () => import('./commands/state-versions.js'),
  stateMigrate: () => import('./commands/state-migrate.js'),
  schema: () => import('./commands/schema.js'),
  emulator: () => import('./commands/emulator.js'),
  agent: () => import('./commands/agent.js'),
};

/** What the actions need: the masked outside world, the signal to stop a service, where the exit code goes. */
export interface Wiring {
  io: Io;
  stop?: Promise<void>;
  done: (code: number) => void;
}

/** Every command of the program. */
export function addCommands(program: Command, wiring: Wiring): void {
  for (const add of [addReading, addPlans, addAdoption, addState, addBudget, addAgent, addTools]) add(program, wiring);
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

/** Validate, plan and apply: the commands that read the documents (and the platform). */
function addReading(program: Command, { io, done }: Wiring): void {
  validateOptions(
    program
      .command('validate [dir]')
      .description('parse, schema-check and cross-check every document; sends no request'),
  ).action(async (dir, flags) => {
    done(await (await commands.validate()).validateCommand(dir, flags, io));
  });
  planning(
    common(program.command('plan [dir]').description('read the live state and print the changes apply would make')),
  )
    .option('--out <file>', 'also save the plan as JSON')
    .option('--detailed-exitcode', 'exit 2 when there are changes')
    .action(async (dir, flags) => {
      done(await (await commands.plan()).planCommand(dir, flags, io));
    });
  planning(common(program.command('apply [dir]').description('plan, confirm, then write')))
    .option('--yes', 'do not ask for confirmation')
    .option('--plan <file>', 'apply this saved plan (refused if the live state or the configuration moved since)')
    .option('--lock-timeout <seconds>', 'wait this long for another apply to the same state to finish (default 0)')
    .option('--all-or-nothing', 'write nothing when a change window holds any change (default: write what none holds)')
    .action(async (dir, flags) => {
      done(await (await commands.apply()).applyCommand(dir, flags, io));
    });
}

/** Show and graph: a plan printed or drawn. */
function addPlans(program: Command, { io, done }: Wiring): void {
  program
    .command('show <file>')
    .description('print a saved plan (plan --out FILE) as plan would; sends nothing, needs no token')
    .option('--format <format>', 'output: text, markdown (for pull-request comments) or json')
    .option('--json', 'the plan JSON on stdout (same as --format json)')
    .option('--quiet', 'only the summary line')
    .action(async (file, flags) => {
      done((await commands.show()).showCommand(file, flags, io));
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
      done(await (await commands.graph()).graphCommand(dir, flags, io));
    });
}

/** Export and import: resources made elsewhere taken in. */
function addAdoption(program: Command, { io, done }: Wiring): void {
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
      done(await (await commands.export()).exportCommand(dir, flags, io));
    });
  common(
    program
      .command('import <address> <id> [dir]')
      .description("bind an existing resource to a document's address in the state (Terraform's import)"),
  )
    .option('--lock-timeout <seconds>', 'wait this long for an apply holding the state')
    .action(async (address, id, dir, flags) => {
      done(await (await commands.import()).importCommand(address, id, dir, flags, io));
    });
}

/** The fleet's API budget: budget status. */
function addBudget(program: Command, { io, done }: Wiring): void {
  const budget = program.command('budget').description("the fleet's API budget on an environment's platform");
  common(
    budget
      .command('status [dir]')
      .description('the budget, what the fleet learnt of the platform, and who holds leases'),
  ).action(async (dir, flags) => {
    done(await (await commands.budget()).budgetStatus(dir, flags, io));
  });
}

/** State and its subcommands. */
function addState(program: Command, wiring: Wiring): void {
  const state = program.command('state').description('inspect or edit the state of an environment');
  addStateEntries(state, wiring);
  addStateVersions(state, wiring);
}

/** state list, forget and mv: the state's entries. */
function addStateEntries(state: Command, { io, done }: Wiring): void {
  common(state.command('list [dir]').description('the resources the state knows, with their ids')).action(
    async (dir, flags) => {
      done(await (await commands.state()).stateList(dir, flags, io));
    },
  );
  common(
    state.command('forget <address> [dir]').description('drop one resource from the state (e.g. one removed by hand)'),
  )
    .option('--lock-timeout <seconds>', 'wait this long for an apply holding the state')
    .action(async (address, dir, flags) => {
      done(await (await commands.state()).stateForget(address, dir, flags, io));
    });
  common(
    state
      .command('mv <old> <new> [dir]')
      .description('move a resource to another address of its kind in the state (a renamed document)'),
  )
    .option('--lock-timeout <seconds>', 'wait this long for an apply holding the state')
    .action(async (from, to, dir, flags) => {
      done(await (await commands.state()).stateMove(from, to, dir, flags, io));
    });
}

/** state history, pull, push and migrate: the state's versions as a whole. */
function addStateVersions(state: Command, { io, done }: Wiring): void {
  common(
    state
      .command('history [dir]')
      .description('who wrote each version of the state, when, from where (database state)'),
  )
    .option('--limit <n>', 'show at most this many versions, newest first (default 50)')
    .action(async (dir, flags) => {
      done(await (await commands.stateVersions()).stateHistory(dir, flags, io));
    });
  common(state.command('pull [dir]').description('print the state JSON'))
    .option('--serial <n>', 'an earlier version, from the history (database state)')
    .action(async (dir, flags) => {
      done(await (await commands.stateVersions()).statePull(dir, flags, io));
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
      done(await (await commands.stateVersions()).statePush(file, dir, flags, io));
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
      done(await (await commands.stateMigrate()).stateMigrate(from, dir, flags, io));
    });
}

/** Agent: the reconciling service. */
function addAgent(program: Command, { io, stop, done }: Wiring): void {
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
    .option(
      '--document-env <name>',
      'an environment variable the documents may read as ${env.NAME} (repeatable; default: none)',
      collect,
    )
    .option('--log-format <format>', 'text (default) or json: one object per line');
  for (const o of platformOptions()) agent.addOption(o);
  documentOptions(agent).action(async (flags) => {
    done(await (await commands.agent()).agentCommand(flags, io, stop));
  });
}

/** Schema and emulator. */
function addTools(program: Command, { io, stop, done }: Wiring): void {
  program
    .command('schema [kind]')
    .description('print the JSON Schema of a document kind (no kind: list them)')
    .action(async (kind) => {
      done((await commands.schema()).schemaCommand(kind, io));
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
      done(await (await commands.emulator()).emulatorCommand(flags, io, stop));
    });
}
