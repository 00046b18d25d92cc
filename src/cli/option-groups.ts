// The options commands share, in groups: where the documents' values come from, how the platform is reached, the
// output, and planning's own.
import { Command, Option } from 'commander';

export const collect = (v: string, prev: string[] = []) => [...prev, v];

/** Where the documents' values come from, and how much to say when something breaks. */
export function documentOptions(cmd: Command): Command {
  return cmd
    .option('--env <name>', 'environment from the project file (env TAPEDECK_ENV)')
    .option('--var <name=value>', 'set a variable (repeatable)', collect)
    .option('--var-file <file>', 'YAML or JSON file of variables (repeatable)', collect)
    .option('--debug', 'log each request (never the token) and show stack traces');
}

/** The platform, the token, the state and how requests are made: everything validate never uses. */
export const platformOptions = () => [
  new Option('--base-url <url>', 'API base URL (env TAPEDECK_BASE_URL)'),
  new Option('--token-file <file>', 'file holding the bearer token (else env TAPEDECK_TOKEN)'),
  new Option(
    '--state <file|url>',
    'state file (default DIR/.tapedeck/<env>.state.json) or postgres:// URL (env TAPEDECK_STATE_URL)',
  ),
  new Option(
    '--concurrency <n>',
    'parallel requests at most (default 8; halved after a 429, regained as requests succeed)',
  ),
  new Option('--max-rps <n>', 'at most N requests reach the platform in any one second'),
  new Option(
    '--budget-max-rps <n>',
    "the fleet's API budget for this run: requests per second for all tapedeck processes",
  ),
  new Option('--budget-share <fraction>', "the fleet's API budget for this run: this share of the platform's limit"),
  new Option('--timeout <seconds>', 'per-request timeout (default 30)'),
  new Option('--retries <n>', 'retries of a failed read or idempotent write (default 4)'),
  new Option('--retry-deadline <seconds>', 'no retry starts after this long (default 120)'),
  new Option('--deadline <seconds>', 'the whole run: no request starts after this long (default 3600)'),
  new Option('--insecure-http', 'allow plain http to a non-loopback host'),
  new Option('--recreate-missing', 'plan a create for a resource the state knows but the platform does not have'),
];

export function common(cmd: Command): Command {
  for (const o of platformOptions()) cmd.addOption(o);
  return documentOptions(cmd)
    .option('--json', 'machine output on stdout')
    .option(
      '--format <format>',
      'output: text, markdown (for pull-request comments) or json; plan and apply also github (rule findings as annotations)',
    )
    .option('--quiet', 'only the summary and errors');
}

/**
 * validate's help lists what it uses. The platform flags are still accepted, unlisted, so a script can pass the
 * same flags to validate and to plan; validate ignores them and sends nothing.
 */
export function validateOptions(cmd: Command): Command {
  for (const o of [...platformOptions(), new Option('--quiet')]) cmd.addOption(o.hideHelp());
  return documentOptions(cmd)
    .option('--json', 'the issues as JSON on stdout (same as --format json)')
    .option('--format <format>', 'the issues as text (default), json, github (GitHub Actions annotations) or markdown');
}

export const planning = (cmd: Command) =>
  cmd
    .option(
      '--target <address>',
      'only this resource (Kind/name, * globs) and what it references (repeatable)',
      collect,
    )
    .option('--refresh <mode>', 'full (default): read every document; changed: only those changed since the last apply')
    .option('--allow <rule=reason>', "let a guardrail rule's denials through, recording why (repeatable)", collect)
    .option('--allow-file <file>', 'the --allow RULE=REASON of a reviewed file, one a line (repeatable)', collect)
    .option(
      '--override-window <name=reason>',
      "lift a change window's hold, recording why (repeatable; not for a window with override: false)",
      collect,
    )
    .option('--now <time>', 'check the change windows and the rules as at this RFC 3339 time (a rehearsal)');
