/**
 * A time-skipping Temporal test environment for workflow tests, on the Java test server.
 *
 * `TestWorkflowEnvironment.createTimeSkipping()` would download a native build of the test server
 * from a host this machine cannot reach; that build is the Java SDK's test server compiled ahead of
 * time, so `scripts/test-server.sh` runs the same server from Maven Central's jars on a JVM. It is
 * fetched on first use (one progress line), and the SDK starts it as an existing-path executable:
 * sdk-core runs `<launcher> <port>` and waits up to 5 s for it to answer (a JVM with the class-data
 * archive made at fetch time answers in about one). No java or no mvn fails with an error naming
 * it: a test that needs this environment never skips.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { indexedValueTypes } from '../../src/client/searchAttributeSetup';
import { repoRoot } from '../../harness/repo';

/** The launcher the SDK runs; `fetch` and `run PORT` by hand too. */
export const TEST_SERVER_LAUNCHER = join(repoRoot(), 'scripts', 'test-server.sh');

let fetched: Promise<string> | undefined;

/**
 * Makes sure the server's jars are in the cache (fetching them with mvn the first time) and that
 * java is there to run them; resolves to the cache folder. Once per process.
 */
export function ensureTestServer(): Promise<string> {
  fetched ??= launcher(['fetch']).catch((error: unknown) => {
    fetched = undefined;
    throw error;
  });
  return fetched;
}

/** A fresh time-skipping environment with its own server and the session search attributes; `teardown()` kills the server. */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  await ensureTestServer();
  const start = () =>
    TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER_LAUNCHER } } });
  let env: TestWorkflowEnvironment;
  try {
    env = await start();
  } catch (first) {
    // The one way this fails once java and the jars are there is a JVM slower than sdk-core's 5 s
    // wait (a machine under load): a second start finds the JVM's files in the page cache.
    try {
      env = await start();
    } catch (second) {
      throw new Error(
        `the Java time-skipping test server did not start twice (${describe(first)}; then ${describe(second)}); ` +
          `run '${TEST_SERVER_LAUNCHER} run 7299' to see what it says`,
        { cause: second },
      );
    }
  }
  // Like every dev server agentd starts, the test server needs the session search attributes: an
  // upsert of one it does not know fails the workflow task, and the session never moves.
  await env.connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes: indexedValueTypes() });
  return env;
}

/** Runs the launcher; its stderr (the fetch's progress line, or why it failed) goes to ours as it comes. */
function launcher(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(TEST_SERVER_LAUNCHER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      process.stderr.write(chunk);
    });
    child.on('error', (error) => reject(new Error(`cannot run ${TEST_SERVER_LAUNCHER}: ${error.message}`, { cause: error })));
    child.on('close', (code) => {
      if (code === 0) return resolve(stdout.trim());
      const why = stderr.trim().split('\n').filter(Boolean).pop() ?? `exit code ${code}`;
      reject(new Error(`the Temporal time-skipping test server is not available: ${why}`));
    });
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
