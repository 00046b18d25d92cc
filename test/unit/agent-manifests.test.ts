// The agent's deployment files as a team copies them: the Kubernetes manifests validated against Kubernetes' own
// schemas (kubernetes-models, generated from the API's OpenAPI definitions), with probes, resources, a locked-down
// securityContext and Secrets mounted as files; the systemd unit through `systemd-analyze verify`; the Dockerfile's
// promises (the packed package installed by scripts/install-agent.sh, git, a non-root user, tini, no token).
// What the install makes, run as an unprivileged user, is test/slow/agent-install.test.ts's.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const file = (path: string) => readFileSync(join(root, path), 'utf8');
const docs = parseAllDocuments(file('examples/agent/deployment.yaml')).map((d) => d.toJS());
const MODELS: Record<string, new (o: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
};

describe('examples/agent/deployment.yaml', () => {
  it("every object is valid for Kubernetes' schema of its kind", () => {
    expect(docs.map((d) => `${d.apiVersion}/${d.kind}`)).toEqual(['apps/v1/Deployment', 'v1/Service']);
    for (const d of docs) {
      const Model = MODELS[`${d.apiVersion}/${d.kind}`];
      expect(() => new Model(d as never).validate()).not.toThrow();
    }
    // The check is real: a wrong type or a probe without its port is refused.
    const broken = structuredClone(docs[0]);
    broken.spec.template.spec.containers[0].livenessProbe.httpGet = { path: '/healthz' };
    expect(() => new Deployment(broken).validate()).toThrow(/httpGet must have required property port/);
  });

  it('the agent runs the image of examples/agent/Dockerfile, probed, bounded, unprivileged, its secrets as files', () => {
    const pod = docs[0].spec.template.spec;
    const [c] = pod.containers;
    expect(c.image).toMatch(/\/tapedeck-agent:\d+\.\d+\.\d+$/);
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.startupProbe.httpGet.path).toBe('/healthz');
    expect(c.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(c.resources.limits.memory).toBeDefined();
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(c.securityContext).toEqual({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    // Secrets only as files: no env value from a Secret, and every file flag points into the mounted Secret.
    expect(JSON.stringify(c.env ?? [])).not.toMatch(/secretKeyRef/);
    expect(c.envFrom).toBeUndefined();
    const secretVolume = pod.volumes.find((v: { secret?: object }) => v.secret);
    const mount = c.volumeMounts.find((m: { name: string }) => m.name === secretVolume.name);
    expect(mount.readOnly).toBe(true);
    for (const arg of c.args.filter((a: string) => /^--(token|webhook-secret)-file=/.test(a)))
      expect(arg.split('=')[1].startsWith(`${mount.mountPath}/`), arg).toBe(true);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(60);
  });
});

describe('examples/agent/tapedeck-agent.service', () => {
  // systemd's own checker. The machine image CI runs on has systemd (Debian's package), so this never passes by not
  // running: without systemd-analyze it fails, saying how to get it.
  it('passes systemd-analyze verify', () => {
    const which = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    expect(which.error, 'systemd-analyze is needed for this test (Debian: apt-get install systemd)').toBeUndefined();
    const run = spawnSync('systemd-analyze', ['verify', join(root, 'examples/agent/tapedeck-agent.service')], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('is unprivileged, stops by SIGTERM with time to finish a write, and keeps its secrets as credentials', () => {
    const unit = file('examples/agent/tapedeck-agent.service');
    for (const line of [
      'DynamicUser=yes',
      'NoNewPrivileges=yes',
      'KillSignal=SIGTERM',
      'LoadCredentialEncrypted=tapedeck-token',
    ])
      expect(unit).toContain(`\n${line}\n`);
    expect(unit).toContain('--token-file ${CREDENTIALS_DIRECTORY}/tapedeck-token');
    expect(unit).toContain('scripts/install-agent.sh /opt/tapedeck');
    expect(unit).not.toMatch(/^Environment=.*TOKEN/m);
  });
});

describe('examples/agent/Dockerfile', () => {
  const dockerfile = file('examples/agent/Dockerfile');
  const final = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  it('installs through scripts/install-agent.sh, runs as a non-root user under tini, with git and no token', () => {
    expect(dockerfile).toMatch(/^RUN npm run build && sh scripts\/install-agent\.sh \/opt\/tapedeck$/m);
    expect(final).toMatch(/^FROM node:24-bookworm-slim$/m);
    expect(final).toMatch(/apt-get install -y --no-install-recommends git tini /);
    expect(final).toMatch(/^COPY --from=build \/opt\/tapedeck \/opt\/tapedeck$/m);
    expect(final).toMatch(/^USER 10001:10001$/m);
    expect(final).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "/opt/tapedeck/node_modules/.bin/tapedeck"]');
    expect(dockerfile).not.toMatch(/^(ENV|ARG)\b.*(TOKEN|SECRET|PASSWORD)/im);
    // The final image gets no development dependency: only the installed directory is copied from the build.
    expect(final.match(/^COPY .*/gm)).toEqual(['COPY --from=build /opt/tapedeck /opt/tapedeck']);
  });
});
