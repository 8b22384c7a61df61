/**
 * Connection options end to end: resolving env and flags (errors name the field, descriptions hide
 * secrets), a worker and the CLI running a session through an mTLS proxy that refuses clients
 * without a certificate, and an API key arriving as `authorization: Bearer …` at a gRPC proxy.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { connectClient, SessionClient } from '../../src/client/sessionClient';
import { loadConnectionOptions, connectTemporal } from '../../src/connection/connect';
import { ConnectionSettingsError, describeConnection, resolveConnectionSettings } from '../../src/connection/options';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import type { SessionResult } from '../../src/session/state';
import { ExitCode } from '../../src/cli/command';
import { startApiKeyProxy, type ApiKeyProxy } from '../helpers/apiKeyProxy';
import { startMtlsProxy, type MtlsProxy } from '../helpers/mtlsProxy';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { startTestTemporal, type TestTemporal } from '../../harness/temporal';
import { makeTestPki, TEST_SERVER_NAME, type TestPki } from '../helpers/testPki';
import { startWorkerProcess } from '../../harness/workerProcess';

const WORKFLOW_SERVICE = '/temporal.api.workflowservice.v1.WorkflowService/';

function settingsError(run: () => unknown): ConnectionSettingsError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConnectionSettingsError) return error;
    throw error;
  }
  assert.fail('expected a ConnectionSettingsError');
}

describe('connection settings from env and flags', () => {
  it('defaults to the local dev server over plain TCP', () => {
    const settings = resolveConnectionSettings({});
    assert.equal(settings.address, '127.0.0.1:7233');
    assert.equal(settings.namespace, 'default');
    assert.equal(settings.tls, undefined);
    assert.equal(describeConnection(settings), '127.0.0.1:7233 (namespace default), plain TCP');
  });

  it('lets flags override the stock CLI variables and remembers where each value came from', () => {
    const settings = resolveConnectionSettings(
      { TEMPORAL_ADDRESS: 'env-host:7233', TEMPORAL_TLS_CLIENT_CERT_PATH: '/secrets/env.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: '/secrets/env.key' },
      { address: 'ns.a1b2c.tmprl.cloud:7233', namespace: 'ns.a1b2c', 'tls-cert': '/etc/agentd/tls/client.pem' },
    );
    assert.equal(settings.address, 'ns.a1b2c.tmprl.cloud:7233');
    assert.equal(settings.namespace, 'ns.a1b2c');
    assert.deepEqual(settings.tls, { clientCertPath: '/etc/agentd/tls/client.pem', clientKeyPath: '/secrets/env.key' });
    assert.equal(settings.origins.clientCertPath, '--tls-cert');
    assert.equal(settings.origins.clientKeyPath, 'TEMPORAL_TLS_CLIENT_KEY_PATH');
    assert.equal(describeConnection(settings), 'ns.a1b2c.tmprl.cloud:7233 (namespace ns.a1b2c), mTLS (cert …/tls/client.pem)');
  });

  it('turns TLS on for an API key and never prints the key', () => {
    const settings = resolveConnectionSettings({ TEMPORAL_API_KEY: 'sk-very-secret', TEMPORAL_ADDRESS: 'x.tmprl.cloud:7233' });
    assert.deepEqual(settings.tls, {});
    const description = describeConnection(settings);
    assert.equal(description, 'x.tmprl.cloud:7233 (namespace default), TLS, API key set (TEMPORAL_API_KEY)');
    assert.doesNotMatch(description, /very-secret/);
    assert.doesNotMatch(JSON.stringify(settings), /very-secret/);
    assert.doesNotMatch(inspect(settings, { depth: 10 }), /very-secret/);
  });

  it('names the bad variable or flag', () => {
    assert.match(settingsError(() => resolveConnectionSettings({ TEMPORAL_ADDRESS: 'no-port' })).message, /^TEMPORAL_ADDRESS: expected host:port.*got 'no-port'/);
    assert.match(settingsError(() => resolveConnectionSettings({}, { address: 'a b:1' })).message, /^--address: expected host:port/);
    assert.match(
      settingsError(() => resolveConnectionSettings({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' })).message,
      /TEMPORAL_TLS_CLIENT_CERT_PATH is set but TEMPORAL_TLS_CLIENT_KEY_PATH \(--tls-key\) is not/,
    );
    assert.match(settingsError(() => resolveConnectionSettings({ TEMPORAL_TLS: 'yes' })).message, /^TEMPORAL_TLS: expected 'true' or 'false'/);
    assert.match(
      settingsError(() => resolveConnectionSettings({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).message,
      /^TEMPORAL_TLS is false but TLS options or an API key are set/,
    );
    const both = settingsError(() => resolveConnectionSettings({ TEMPORAL_API_KEY: 'secret-value' }, { 'api-key-file': '/k' }));
    assert.match(both.message, /TEMPORAL_API_KEY and --api-key-file are both set/);
    assert.doesNotMatch(both.message, /secret-value/);
  });

  it('names the file that is missing or is not PEM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentd-conn-'));
    try {
      await writeFile(join(dir, 'key.pem'), '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
      const missing = resolveConnectionSettings({}, { 'tls-ca': join(dir, 'nope.pem') });
      await assert.rejects(loadConnectionOptions(missing), /^ConnectionSettingsError: --tls-ca: cannot read '.*nope\.pem' \(ENOENT\)/);
      const swapped = resolveConnectionSettings({
        TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'key.pem'),
        TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'key.pem'),
      });
      await assert.rejects(loadConnectionOptions(swapped), /TEMPORAL_TLS_CLIENT_CERT_PATH: '.*key\.pem' holds no PEM certificate/);
      await writeFile(join(dir, 'empty'), '\n');
      await assert.rejects(
        loadConnectionOptions(resolveConnectionSettings({ AGENTD_TEMPORAL_API_KEY_FILE: join(dir, 'empty') })),
        /AGENTD_TEMPORAL_API_KEY_FILE: '.*empty' is empty/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('secured connections on a real dev server', () => {
  let temporal: TestTemporal;
  let simulator: RunningSimulator;
  let dir: string;
  let pki: TestPki;
  before(async () => {
    temporal = await startTestTemporal();
    simulator = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'agentd-tls-'));
    pki = makeTestPki(dir);
  });
  after(async () => {
    await simulator?.stop();
    await temporal?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const agentd = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    finished(spawnNode(entryPoint('cli/main'), args, { AGENTD_STORE: join(dir, 'cli.db'), ...env }));

  describe('mTLS', () => {
    let proxy: MtlsProxy;
    before(async () => {
      proxy = await startMtlsProxy(pki, temporal.address);
    });
    after(async () => {
      await proxy?.stop();
    });

    it('a worker (settings from env) and the CLI (settings from flags) run a session through it', async () => {
      const worker = startWorkerProcess({
        temporalAddress: proxy.address,
        storeFile: join(dir, 'mtls.db'),
        workspaceRoot: join(dir, 'workspaces'),
        modelBaseURL: simulator.baseURL,
        extra: {
          TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
          TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey,
          TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
          TEMPORAL_TLS_SERVER_NAME: TEST_SERVER_NAME,
        },
      });
      try {
        const started = await agentd([
          'start', 'mtls job [sim steps=3]', '--follow', '--json', '--id', 'mtls-1',
          '--address', proxy.address, '--tls-cert', pki.clientCert, '--tls-key', pki.clientKey,
          '--tls-ca', pki.caCert, '--tls-server-name', TEST_SERVER_NAME,
        ]);
        assert.equal(started.code, 0, started.stderr);
        const result = JSON.parse(started.stdout) as SessionResult;
        assert.equal(result.outcome, 'finished');
        assert.equal(result.sessionId, 'mtls-1');
        // The worker's connection and the CLI's went through the proxy's handshake.
        assert.ok(proxy.accepted() >= 2, `accepted ${proxy.accepted()} handshakes`);
      } finally {
        const output = await worker.stop();
        const key = await readFile(pki.clientKey, 'utf8');
        assert.match(output.stderr, /agentd worker on 127\.0\.0\.1:\d+ \(namespace default\), mTLS \(cert …\/.*\/client\.pem\)/);
        assert.ok(!output.stderr.includes(key.split('\n')[1] ?? key), 'the worker log holds no key material');
      }
    });

    it('refuses a client without a certificate', async () => {
      const refusedBefore = proxy.rejected().length;
      const status = await agentd(['status', 'mtls-1', '--address', proxy.address, '--tls-ca', pki.caCert, '--tls-server-name', TEST_SERVER_NAME]);
      assert.equal(status.code, ExitCode.unavailable, status.stderr);
      assert.match(status.stderr, /cannot reach the Temporal server/);
      assert.ok(proxy.rejected().length > refusedBefore, 'the proxy saw and refused the handshake');
      // The same command with the certificate lists the session that ran above.
      const withCert = await agentd([
        'list', '--json', '--address', proxy.address, '--tls-ca', pki.caCert,
        '--tls-server-name', TEST_SERVER_NAME, '--tls-cert', pki.clientCert, '--tls-key', pki.clientKey,
      ]);
      assert.equal(withCert.code, 0, withCert.stderr);
      const rows = JSON.parse(withCert.stdout) as Array<{ sessionId: string; runStatus: string }>;
      assert.ok(rows.some((row) => row.sessionId === 'mtls-1' && row.runStatus === 'COMPLETED'), withCert.stdout);
    });
  });

  describe('API key', () => {
    const apiKey = `agentd-test-key-${process.pid}`;
    let proxy: ApiKeyProxy;
    before(async () => {
      proxy = await startApiKeyProxy(pki, temporal.address, apiKey);
    });
    after(async () => {
      await proxy?.stop();
    });

    it('reaches the server as authorization: Bearer from the worker (key file) and the client (env)', async () => {
      const keyFile = join(dir, 'api-key');
      await writeFile(keyFile, `${apiKey}\n`, { mode: 0o600 });
      const worker = startWorkerProcess({
        temporalAddress: proxy.address,
        storeFile: join(dir, 'apikey.db'),
        workspaceRoot: join(dir, 'workspaces'),
        modelBaseURL: simulator.baseURL,
        extra: { AGENTD_TEMPORAL_API_KEY_FILE: keyFile, TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert, TEMPORAL_TLS_SERVER_NAME: TEST_SERVER_NAME },
      });
      try {
        const client = await connectClient({
          connection: resolveConnectionSettings({
            TEMPORAL_ADDRESS: proxy.address,
            TEMPORAL_API_KEY: apiKey,
            TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
            TEMPORAL_TLS_SERVER_NAME: TEST_SERVER_NAME,
          }),
        });
        try {
          const sessions = new SessionClient(client);
          const handle = await sessions.start({ task: 'api key job [sim steps=2]', model: 'agentd-sim' }, { sessionId: 'apikey-1' });
          const result = await sessions.result(handle.workflowId);
          assert.equal(result.outcome, 'finished');
        } finally {
          await client.connection.close();
        }
        const methods = proxy.authorized();
        for (const method of ['StartWorkflowExecution', 'PollWorkflowTaskQueue', 'RespondWorkflowTaskCompleted', 'PollActivityTaskQueue']) {
          assert.ok(methods.includes(`${WORKFLOW_SERVICE}${method}`), `${method} went through the proxy with the key`);
        }
        assert.deepEqual(proxy.refused(), []);
      } finally {
        const output = await worker.stop();
        assert.match(output.stderr, /API key from file …\/.*\/api-key/);
        assert.ok(!output.stderr.includes(apiKey), 'the worker log does not hold the key');
      }
    });

    it('a wrong key is refused with UNAUTHENTICATED', async () => {
      const settings = resolveConnectionSettings({
        TEMPORAL_ADDRESS: proxy.address,
        TEMPORAL_API_KEY: 'not-the-key',
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
        TEMPORAL_TLS_SERVER_NAME: TEST_SERVER_NAME,
      });
      await assert.rejects(connectTemporal(settings), (error: unknown) => {
        const cause = error instanceof Error ? error.cause : undefined;
        assert.match(String(cause instanceof Error ? cause.message : cause), /UNAUTHENTICATED: missing or wrong API key/);
        return true;
      });
      assert.ok(proxy.refused().some((request) => request.authorization === 'Bearer not-the-key'));
    });
  });
});
