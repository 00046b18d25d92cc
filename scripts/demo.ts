// npm run demo: the emulator in-process on a free port, seeded from examples/seed.yaml, then the real CLI:
// plan, apply --yes, and a second plan that shows no changes. Each step printed as a user would see it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../src/cli/main.js';
import { processIo } from '../src/cli/io.js';
import { startEmulator } from '../src/emulator/server.js';

const root = resolve(import.meta.dirname, '..');
const seedFile = join(root, 'examples', 'seed.yaml');
const emu = await startEmulator({
  port: 0,
  seed: { text: readFileSync(seedFile, 'utf8'), file: 'examples/seed.yaml' },
});
const stateDir = mkdtempSync(join(tmpdir(), 'tapedeck-demo-'));
const io = {
  ...processIo(),
  env: { ...process.env, TAPEDECK_TOKEN: 'dev-token', TAPEDECK_BASE_URL: emu.url },
  cwd: root,
  isTTY: false,
};
const common = ['examples/basic', '--state', join(stateDir, 'demo.state.json')];

const step = async (title: string, args: string[]) => {
  process.stdout.write(`\n$ tapedeck ${args.join(' ')}\n# ${title}\n`);
  const code = await main(args, io);
  process.stdout.write(`# exit code ${code}\n`);
  return code;
};

let failed = false;
try {
  process.stdout.write(`Emulator seeded from examples/seed.yaml at ${emu.url}\n`);
  failed ||= (await step('validate the documents (offline)', ['validate', 'examples/basic'])) !== 0;
  failed ||= (await step('what would change', ['plan', ...common])) !== 0;
  failed ||= (await step('make the changes', ['apply', ...common, '--yes'])) !== 0;
  const again = await step('plan again: nothing left to do', ['plan', ...common, '--detailed-exitcode']);
  failed ||= again !== 0;
} finally {
  await emu.close();
  rmSync(stateDir, { recursive: true, force: true });
}
if (failed) {
  process.stderr.write('demo: a step did not end as expected\n');
  process.exitCode = 1;
}
