/**
 * Payload encryption: the codec on its own (round trip, key rotation, unknown key, tampering, env
 * validation), then on a real dev server — with keys set the server's raw history holds neither the
 * task nor its marker while agentd's own client reads state and result; without keys the same check
 * finds the plaintext, so the check can fail.
 */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, type WorkflowBundle } from '@temporalio/worker';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inspect, promisify } from 'node:util';
import { connectClient, SessionClient } from '../../src/client/sessionClient';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadDecryptionError } from '../../src/codec/aesGcmCodec';
import { agentdDataConverter, ENCRYPTED_FAILURE_CONVERTER_PATH } from '../../src/codec/dataConverter';
import { EncryptionSettingsError, readEncryptionKeys, type EncryptionKeys } from '../../src/codec/encryptionKeys';
import { resolveConnectionSettings } from '../../src/connection/options';
import { ensureTemporalCli } from '../../src/devServer/temporalCli';
import type { SessionResult } from '../../src/session/state';
import { createModelClient } from '../../src/model/client';
import { startSimulator } from '../../src/simulator/server';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import { createBuiltinRegistry } from '../../src/tools/registry';
import { createAgentWorker } from '../../src/worker';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { startServerStack, type ServerStack } from '../../harness/stack';
import { startWorkerProcess } from '../../harness/workerProcess';

const run = promisify(execFile);

function keysFor(id: string, previous?: string): EncryptionKeys {
  const keys = readEncryptionKeys({
    AGENTD_ENCRYPTION_KEY_ID: id,
    AGENTD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...(previous ? { AGENTD_ENCRYPTION_PREVIOUS_KEYS: previous } : {}),
  });
  assert.ok(keys);
  return keys;
}

function jsonPayload(value: unknown): Payload {
  return { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) };
}

function settingsError(env: NodeJS.ProcessEnv): EncryptionSettingsError {
  try {
    readEncryptionKeys(env);
  } catch (error) {
    if (error instanceof EncryptionSettingsError) return error;
    throw error;
  }
  assert.fail('expected an EncryptionSettingsError');
}

describe('AES-256-GCM payload codec', () => {
  it('round-trips payloads, keeps the key id in metadata and hides the plaintext', async () => {
    const codec = new AesGcmPayloadCodec(keysFor('k1'));
    const original = jsonPayload({ task: 'secret plans' });
    const [encrypted] = await codec.encode([original]);
    assert.ok(encrypted);
    assert.equal(Buffer.from(encrypted.metadata?.encoding ?? []).toString(), ENCRYPTED_ENCODING);
    assert.equal(Buffer.from(encrypted.metadata?.[KEY_ID_METADATA] ?? []).toString(), 'k1');
    assert.ok(!Buffer.from(encrypted.data ?? []).toString('latin1').includes('secret plans'));
    const [decoded] = await codec.decode([encrypted]);
    assert.deepEqual(Buffer.from(decoded?.data ?? []).toString(), JSON.stringify({ task: 'secret plans' }));
    assert.equal(Buffer.from(decoded?.metadata?.encoding ?? []).toString(), 'json/plain');
  });

  it('decodes payloads of a rotated-out key kept in AGENTD_ENCRYPTION_PREVIOUS_KEYS', async () => {
    const oldKey = randomBytes(32).toString('base64');
    const before = new AesGcmPayloadCodec(readEncryptionKeys({ AGENTD_ENCRYPTION_KEY_ID: 'old', AGENTD_ENCRYPTION_KEY: oldKey })!);
    const after = new AesGcmPayloadCodec(keysFor('new', `old=${oldKey}`));
    const [sealed] = await before.encode([jsonPayload('written under the old key')]);
    const [opened] = await after.decode([sealed!]);
    assert.equal(Buffer.from(opened?.data ?? []).toString(), '"written under the old key"');
  });

  it('says clearly when the key id is unknown or the bytes were altered', async () => {
    const [sealed] = await new AesGcmPayloadCodec(keysFor('gone')).encode([jsonPayload(1)]);
    await assert.rejects(new AesGcmPayloadCodec(keysFor('k2')).decode([sealed!]), (error: unknown) => {
      assert.ok(error instanceof PayloadDecryptionError);
      assert.equal(error.code, 'unknown_key_id');
      assert.match(error.message, /key id 'gone'.*known: k2.*AGENTD_ENCRYPTION_PREVIOUS_KEYS/);
      return true;
    });
    const keys = keysFor('k3');
    const codec = new AesGcmPayloadCodec(keys);
    const [mine] = await codec.encode([jsonPayload(2)]);
    const altered = Buffer.from(mine!.data!);
    const at = altered.length - 20;
    altered.writeUInt8(altered.readUInt8(at) ^ 1, at);
    await assert.rejects(codec.decode([{ ...mine, data: altered }]), /failed authentication/);
    // Relabelling a payload to another known key id fails too: the id is authenticated.
    const twoKeys = new AesGcmPayloadCodec(keysFor('k4', `k3=${keys.current.key.export().toString('base64')}`));
    const [other] = await twoKeys.encode([jsonPayload(3)]);
    await assert.rejects(twoKeys.decode([{ ...other, metadata: { ...other!.metadata, [KEY_ID_METADATA]: Buffer.from('k3') } }]), /failed authentication/);
  });

  it('validates the environment and names the bad variable without echoing keys', () => {
    const secretKey = randomBytes(32);
    const parsed = readEncryptionKeys({ AGENTD_ENCRYPTION_KEY_ID: 'k', AGENTD_ENCRYPTION_KEY: secretKey.toString('base64') });
    // How inspect would print the key's first bytes if it held a Buffer: '<Buffer 3a 4f 12 09 …'.
    const printedBytes = inspect(secretKey).slice('<Buffer '.length, '<Buffer '.length + 11);
    assert.ok(!inspect(parsed, { depth: 10 }).includes(printedBytes), 'inspect hides the key');
    assert.ok(!JSON.stringify(parsed).includes(secretKey.toString('base64')), 'JSON hides the key');
    assert.equal(readEncryptionKeys({}), undefined);
    assert.match(settingsError({ AGENTD_ENCRYPTION_KEY: randomBytes(32).toString('base64') }).message, /AGENTD_ENCRYPTION_KEY is set but AGENTD_ENCRYPTION_KEY_ID is not/);
    assert.match(settingsError({ AGENTD_ENCRYPTION_KEY_ID: 'k' }).message, /AGENTD_ENCRYPTION_KEY_ID is set but AGENTD_ENCRYPTION_KEY is not/);
    const short = settingsError({ AGENTD_ENCRYPTION_KEY_ID: 'k', AGENTD_ENCRYPTION_KEY: 'c2hvcnQta2V5' });
    assert.equal(short.variable, 'AGENTD_ENCRYPTION_KEY');
    assert.match(short.message, /^AGENTD_ENCRYPTION_KEY: expected base64 of exactly 32 bytes/);
    assert.doesNotMatch(short.message, /c2hvcnQta2V5/);
    assert.match(settingsError({ AGENTD_ENCRYPTION_KEY_ID: 'k', AGENTD_ENCRYPTION_KEY: 'not base64!' }).message, /^AGENTD_ENCRYPTION_KEY: expected base64/);
    assert.match(settingsError({ AGENTD_ENCRYPTION_KEY_ID: 'bad id', AGENTD_ENCRYPTION_KEY: randomBytes(32).toString('base64') }).message, /^AGENTD_ENCRYPTION_KEY_ID: expected 1-64/);
    assert.match(
      settingsError({ AGENTD_ENCRYPTION_KEY_ID: 'k', AGENTD_ENCRYPTION_KEY: randomBytes(32).toString('base64'), AGENTD_ENCRYPTION_PREVIOUS_KEYS: 'oops' }).message,
      /^AGENTD_ENCRYPTION_PREVIOUS_KEYS: expected id=base64/,
    );
  });
});

describe('history on a real dev server', () => {
  let stack: ServerStack;
  let bundle: WorkflowBundle;
  let store: SqliteTranscriptStore;
  before(async () => {
    stack = await startServerStack();
    store = new SqliteTranscriptStore(join(stack.dir, 'transcripts.db'));
    // Built ahead of the worker, so it needs the failure converter an encrypting worker would bundle.
    bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../src/workflows'),
      failureConverterPath: ENCRYPTED_FAILURE_CONVERTER_PATH,
      logger: new DefaultLogger('WARN'),
    });
  });
  after(async () => {
    await store?.close();
    await stack?.stop();
  });

  /** Every event of every page, straight from the frontend's gRPC API (no codec, no decoding). */
  async function rawHistory(client: Client, workflowId: string): Promise<Buffer> {
    const events: temporal.api.history.v1.IHistoryEvent[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: 'default',
        execution: { workflowId },
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      events.push(...(page.history?.events ?? []));
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    assert.ok(events.length > 10, `history has ${events.length} events`);
    return Buffer.from(temporal.api.history.v1.History.encode({ events }).finish());
  }

  /**
   * What the stock CLI prints for the same history, with every base64 `data` field decoded as a
   * person reading it would — so plaintext payloads show, and encrypted ones stay ciphertext.
   */
  async function stockCliHistory(workflowId: string): Promise<string> {
    const cli = await ensureTemporalCli();
    const { stdout } = await run(cli, ['workflow', 'show', '--workflow-id', workflowId, '--address', stack.temporal.address, '--output', 'json'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const decoded = [...stdout.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((match) => Buffer.from(match[1] ?? '', 'base64').toString('utf8'));
    return [stdout, ...decoded].join('\n');
  }

  async function runSession(keys: EncryptionKeys | undefined, marker: string, model = 'agentd-sim') {
    const simulator = await startSimulator();
    const workerConnection = await NativeConnection.connect({ address: stack.temporal.address });
    const client = await connectClient({ connection: resolveConnectionSettings({ TEMPORAL_ADDRESS: stack.temporal.address }), ...(keys ? { encryption: keys } : {}) });
    const dataConverter = agentdDataConverter(keys);
    try {
      const worker = await createAgentWorker({
        connection: workerConnection,
        workflowBundle: bundle,
        ...(dataConverter ? { dataConverter } : {}),
        deps: { store, model: createModelClient({ baseURL: simulator.baseURL }), tools: createBuiltinRegistry(), workspaceRoot: join(stack.dir, 'ws') },
      });
      const sessions = new SessionClient(client);
      const task = `Catalogue the ${marker} collection and write notes [sim steps=3]`;
      const sessionId = `enc-${randomBytes(4).toString('hex')}`;
      const outcome = await worker.runUntil(async () => {
        await sessions.start({ task, model, contextWindow: 32_768 }, { sessionId });
        const result = await sessions.result(sessionId).catch((error: unknown) => error);
        return { result, state: await sessions.state(sessionId) };
      });
      return { sessionId, task, ...outcome, history: await rawHistory(client, sessionId), stock: await stockCliHistory(sessionId) };
    } finally {
      await client.connection.close();
      await workerConnection.close();
      await simulator.stop();
    }
  }

  it('holds no plaintext when encryption is on, and agentd still reads state and result', async () => {
    const marker = `ZEBRA${randomBytes(4).toString('hex')}`;
    const keys = keysFor('test-2026');
    const { sessionId, task, result, state, history, stock } = await runSession(keys, marker);
    assert.equal((result as SessionResult).outcome, 'finished');
    assert.equal(state.status, 'completed');
    assert.equal(state.sessionId, sessionId);
    // The marker did reach the model and the store: the plaintext exists, just not on the server.
    const stored = await store.list(sessionId, { limit: 10 });
    assert.ok(stored.some((message) => JSON.stringify(message).includes(marker)), 'the store holds the task');
    for (const needle of [marker, task, 'Catalogue the', 'agentd-sim']) {
      assert.ok(!history.includes(needle), `raw history holds '${needle}'`);
      assert.ok(!stock.includes(needle), `temporal workflow show holds '${needle}'`);
    }
    assert.ok(history.includes(ENCRYPTED_ENCODING) && history.includes('test-2026'), 'payloads name their encoding and key id');
    process.stdout.write(`# encrypted history: ${history.length} bytes, marker absent\n`);
  });

  it('holds the plaintext when encryption is off (the check above can fail)', async () => {
    const marker = `ZEBRA${randomBytes(4).toString('hex')}`;
    const { task, result, history, stock } = await runSession(undefined, marker);
    assert.equal((result as SessionResult).outcome, 'finished');
    assert.ok(history.includes(task), 'raw history holds the task');
    assert.ok(stock.includes(marker), 'temporal workflow show holds the marker');
    assert.ok(!history.includes(ENCRYPTED_ENCODING));
  });

  it('encrypts failure messages too: a session failing on an unknown model leaves its name nowhere', async () => {
    const marker = `ZEBRA${randomBytes(4).toString('hex')}`;
    const keys = keysFor('test-2026');
    const { result, state, history, stock } = await runSession(keys, marker, `${marker}-model`);
    assert.ok(result instanceof Error, 'the session failed');
    assert.equal(state.status, 'failed');
    // agentd's client decrypts the failure and reads the cause.
    const cause = result.cause instanceof Error ? result.cause.message : '';
    assert.match(`${JSON.stringify(state)} ${cause}`, new RegExp(marker));
    assert.ok(!history.includes(marker), 'raw history holds the model name');
    assert.ok(!stock.includes(marker), 'temporal workflow show holds the model name');
  });

  it('is configured from the environment for the worker process and the CLI alike', async () => {
    const marker = `ZEBRA${randomBytes(4).toString('hex')}`;
    const keyEnv = { AGENTD_ENCRYPTION_KEY_ID: 'env-key', AGENTD_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    const simulator = await startSimulator();
    const worker = startWorkerProcess({
      temporalAddress: stack.temporal.address,
      storeFile: join(stack.dir, 'process.db'),
      workspaceRoot: join(stack.dir, 'ws'),
      modelBaseURL: simulator.baseURL,
      extra: keyEnv,
    });
    const cli = (args: string[], env: NodeJS.ProcessEnv) =>
      finished(spawnNode(entryPoint('cli/main'), args, { TEMPORAL_ADDRESS: stack.temporal.address, AGENTD_STORE: join(stack.dir, 'process.db'), ...env }));
    try {
      const started = await cli(['start', `Index the ${marker} shelf [sim steps=2]`, '--follow', '--json', '--id', 'enc-process'], keyEnv);
      assert.equal(started.code, 0, started.stderr);
      assert.equal((JSON.parse(started.stdout) as SessionResult).outcome, 'finished');
      const status = await cli(['status', 'enc-process', '--json'], keyEnv);
      assert.equal(status.code, 0, status.stderr);
      // Without the key the CLI cannot read the session's state, and says why.
      const keyless = await cli(['status', 'enc-process', '--json'], {});
      assert.notEqual(keyless.code, 0);
      assert.match(keyless.stderr, /payloads are encrypted: set AGENTD_ENCRYPTION_KEY_ID and AGENTD_ENCRYPTION_KEY/);
      const client = await connectClient(stack.temporal.address);
      try {
        assert.ok(!(await rawHistory(client, 'enc-process')).includes(marker));
      } finally {
        await client.connection.close();
      }
    } finally {
      const output = await worker.stop();
      await simulator.stop();
      assert.match(output.stderr, /payloads encrypted \(AES-256-GCM, key id env-key\)/);
      assert.ok(!output.stderr.includes(keyEnv.AGENTD_ENCRYPTION_KEY), 'the worker log holds no key');
    }
  });
});
