/**
 * The deployment files, checked without a Docker engine (none runs here): `docker-compose config`
 * (Debian's docker-compose 1.29) renders docker-compose.yml, and the rendered services, health
 * checks, volumes and worker environment are asserted; the Dockerfile's entry point must exist in
 * the build output. Missing docker-compose fails under CI=true and skips loudly elsewhere.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../../harness/repo';

const run = promisify(execFile);

interface ComposeService {
  image?: string;
  build?: unknown;
  container_name?: string;
  ports?: unknown[];
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  stop_grace_period?: string;
}

interface ComposeConfig {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

function hasDockerCompose(): boolean {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const HOST_MODEL_KEY = 'sk-from-the-host-environment';

describe('docker-compose.yml and Dockerfile', () => {
  const root = repoRoot();
  const available = hasDockerCompose();
  if (!available && process.env.CI === 'true') {
    it('needs docker-compose (the Debian package) under CI', () => assert.fail('docker-compose is not installed; .ci/run installs it'));
    return;
  }
  if (!available) {
    process.stderr.write('\n!!! SKIPPING compose validation: docker-compose is not installed (apt-get install docker-compose) !!!\n\n');
  }

  let config: ComposeConfig;
  before(async () => {
    if (!available) return;
    const { stdout } = await run('docker-compose', ['-f', 'docker-compose.yml', 'config'], {
      cwd: root,
      // A clean environment plus one host variable the worker must pass through.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_API_KEY: HOST_MODEL_KEY },
    });
    // docker-compose prints YAML; PyYAML comes with Debian's docker-compose, so it turns it into JSON.
    const json = execFileSync('python3', ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], {
      input: stdout,
    });
    config = JSON.parse(json.toString()) as ComposeConfig;
  });

  const service = (name: string): ComposeService => {
    const found = config.services[name];
    assert.ok(found, `service ${name} is rendered`);
    return found;
  };

  it('renders PostgreSQL, Temporal on PostgreSQL, its Web UI, the setup jobs and the workers', { skip: !available }, () => {
    assert.deepEqual(Object.keys(config.services).sort(), ['postgresql', 'temporal', 'temporal-namespace', 'temporal-setup', 'temporal-ui', 'worker']);
    assert.match(service('postgresql').image ?? '', /^postgres:/);
    assert.match(service('temporal').image ?? '', /^temporalio\/server:/);
    assert.equal(service('temporal').environment?.DB, 'postgres12');
    assert.equal(service('temporal').environment?.POSTGRES_SEEDS, 'postgresql');
    // The settings scripts/temporal-cluster.sh starts the loopback cluster with: one file for both.
    assert.equal(service('temporal').environment?.NUM_HISTORY_SHARDS, '4');
    assert.equal(service('temporal').environment?.DYNAMIC_CONFIG_FILE_PATH, '/agentd-deploy/dynamicconfig.yaml');
    assert.match(service('temporal').image ?? '', /:1\.32\.2$/);
    assert.match(service('temporal-ui').image ?? '', /^temporalio\/ui:/);
    assert.equal(service('temporal-ui').environment?.TEMPORAL_ADDRESS, 'temporal:7233');
  });

  it('has health checks, and services wait for the ones they need', { skip: !available }, () => {
    assert.match(service('postgresql').healthcheck?.test.join(' ') ?? '', /pg_isready/);
    assert.match(service('temporal').healthcheck?.test.join(' ') ?? '', /temporal operator cluster health/);
    assert.deepEqual(service('temporal-setup').depends_on, { postgresql: { condition: 'service_healthy' } });
    assert.deepEqual(service('temporal').depends_on, { 'temporal-setup': { condition: 'service_completed_successfully' } });
    assert.deepEqual(service('worker').depends_on, {
      postgresql: { condition: 'service_healthy' },
      temporal: { condition: 'service_healthy' },
      'temporal-namespace': { condition: 'service_completed_successfully' },
    });
  });

  it('keeps data in named volumes', { skip: !available }, () => {
    assert.deepEqual(Object.keys(config.volumes).sort(), ['postgres-data', 'workspaces']);
    assert.ok(service('postgresql').volumes?.some((volume) => volume.startsWith('postgres-data:/var/lib/postgresql/data')));
    assert.ok(service('worker').volumes?.some((volume) => volume.startsWith('workspaces:/data/workspaces')));
    for (const job of ['temporal-setup', 'temporal-namespace']) {
      const mount = service(job).volumes?.find((volume) => volume.includes(':/agentd-deploy'));
      assert.ok(mount, `${job} mounts deploy/temporal`);
      assert.ok(existsSync(mount.split(':')[0] ?? ''), `${mount} exists`);
    }
  });

  it('gives the worker its connection, store and passed-through model settings, and lets it scale', { skip: !available }, () => {
    const worker = service('worker');
    const env = worker.environment ?? {};
    assert.equal(env.TEMPORAL_ADDRESS, 'temporal:7233');
    assert.equal(env.TEMPORAL_NAMESPACE, 'default');
    assert.match(env.AGENTD_STORE ?? '', /^postgres:\/\/[^@]+@postgresql:5432\/agentd$/);
    assert.equal(env.AGENTD_WORKSPACES, '/data/workspaces');
    // Set on the host, so passed through; unset ones stay unset (null), never a hard-coded value.
    assert.equal(env.OPENAI_API_KEY, HOST_MODEL_KEY);
    assert.equal(env.OPENAI_BASE_URL, null);
    assert.equal(env.AGENTD_ENCRYPTION_KEY, null);
    assert.ok(!readFileSync(join(root, 'docker-compose.yml'), 'utf8').includes(HOST_MODEL_KEY));
    // `--scale worker=N` needs no fixed container name and no published host port.
    assert.equal(worker.container_name, undefined);
    assert.equal(worker.ports, undefined);
    assert.ok(worker.build, 'the worker image is built from the Dockerfile');
    assert.equal(worker.stop_grace_period, '2m');
  });

  it('has setup scripts that parse', { skip: !available }, () => {
    for (const script of ['setup-postgres.sh', 'create-namespace.sh']) {
      execFileSync('sh', ['-n', join(root, 'deploy', 'temporal', script)]);
    }
  });
});

describe('Dockerfile', () => {
  const root = repoRoot();
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

  it('builds on node:20-bookworm-slim with build tools and runs as a non-root user', () => {
    assert.deepEqual(
      [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]),
      ['node:20-bookworm-slim', 'node:20-bookworm-slim'],
    );
    assert.match(dockerfile, /apt-get install[^\n]*python3 make g\+\+/);
    assert.match(dockerfile, /^RUN npm ci$/m);
    assert.match(dockerfile, /^USER node$/m);
  });

  it('copies files that exist and are not ignored, and starts an entry point the build produces', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
    for (const match of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const source of (match[1] ?? '').split(' ')) {
        assert.ok(existsSync(join(root, source)), `COPY source ${source} exists`);
        assert.ok(!ignored.includes(source), `COPY source ${source} is not in .dockerignore`);
      }
    }
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    assert.ok(cmd?.[1], 'the Dockerfile has an exec-form CMD');
    const [program, entry] = JSON.parse(cmd[1]) as string[];
    assert.equal(program, 'node');
    // This test runs from dist/ after `npm run build`, the same build the image runs.
    assert.ok(entry && existsSync(join(root, entry)), `${entry} exists after npm run build`);
    assert.match(dockerfile, /COPY --from=build \/app\/dist\/src \.\/dist\/src/);
  });
});
