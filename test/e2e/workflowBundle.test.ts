/**
 * The prebuilt workflow bundle: a worker process loads the one `npm run build` wrote, and bundles
 * at start (saying so in one line) only when it is missing or was built from other workflow code.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { BUNDLE_PATH_ENV, BundleManifestSchema, checkPrebuiltBundle, DEFAULT_BUNDLE_PATH, manifestPathOf, WORKFLOW_BUNDLER_OPTIONS } from '../../src/workflowBundle/prebuiltBundle';
import { workflowSources } from '../../src/workflowBundle/workflowSources';
import { startStack, type Stack } from '../../harness/stack';
import { startWorkerProcess } from '../../harness/workerProcess';

const BUNDLING_WARNING = /bundling the workflow code at start.*npm run build/;

describe('prebuilt workflow bundle', () => {
  let stack: Stack;
  let simulator: RunningSimulator;
  let dir: string;
  before(async () => {
    stack = await startStack();
    simulator = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'agentd-bundle-'));
  });
  after(async () => {
    await simulator?.stop();
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs one short session on a worker process started with `bundlePath`; returns the worker's stderr. */
  async function sessionOnWorker(name: string, bundlePath: string): Promise<string> {
    const worker = startWorkerProcess({
      temporalAddress: stack.temporal.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: simulator.baseURL,
      extra: { [BUNDLE_PATH_ENV]: bundlePath },
    });
    try {
      const handle = await stack.sessions.start({ task: `${name} [sim steps=2]`, model: 'agentd-sim' });
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished', `${name}: the session ran to its end`);
      assert.equal(result.steps, 3);
    } finally {
      await worker.stop();
    }
    return (await worker.done).stderr;
  }

  it('npm run build wrote a bundle whose manifest matches the compiled workflow code', () => {
    const check = checkPrebuiltBundle(DEFAULT_BUNDLE_PATH);
    assert.deepEqual(check, { usable: true, codePath: DEFAULT_BUNDLE_PATH });
  });

  it('a worker with the prebuilt bundle runs a session without bundling', async () => {
    const stderr = await sessionOnWorker('prebuilt', DEFAULT_BUNDLE_PATH);
    assert.doesNotMatch(stderr, /bundling/i);
    assert.match(stderr, /agentd worker on /, 'the worker did start and say so');
  });

  it('the bundle preloads the modules every session shares, and its fingerprint covers them', async () => {
    const code = await readFile(DEFAULT_BUNDLE_PATH, 'utf8');
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    const manifest = BundleManifestSchema.parse(JSON.parse(await readFile(manifestPathOf(DEFAULT_BUNDLE_PATH), 'utf8')));
    assert.ok(WORKFLOW_BUNDLER_OPTIONS.preloadModules.length > 0);
    for (const module of WORKFLOW_BUNDLER_OPTIONS.preloadModules) {
      const file = relative(join(DEFAULT_BUNDLE_PATH, '..'), module);
      assert.ok(preload.includes(`/${file}"`), `${file} is preloaded: ${preload}`);
      assert.ok(manifest.files.includes(file), `${file} is in the fingerprint`);
    }
  });

  it('a worker without a bundle says so in one line, bundles, and runs a session', async () => {
    const missing = join(dir, 'missing', 'workflow-bundle.js');
    const stderr = await sessionOnWorker('missing bundle', missing);
    const warnings = stderr.split('\n').filter((line) => BUNDLING_WARNING.test(line));
    assert.equal(warnings.length, 1, stderr);
    assert.match(warnings[0]!, /no prebuilt workflow bundle at .*missing/);
  });

  it('a worker whose bundle was built from other workflow code bundles instead of running it', async () => {
    const stalePath = join(dir, 'stale', 'workflow-bundle.js');
    await mkdir(join(dir, 'stale'));
    await copyFile(DEFAULT_BUNDLE_PATH, stalePath);
    const manifest = BundleManifestSchema.parse(JSON.parse(await readFile(manifestPathOf(DEFAULT_BUNDLE_PATH), 'utf8')));
    await writeFile(manifestPathOf(stalePath), JSON.stringify({ ...manifest, fingerprint: '0'.repeat(64) }));
    assert.equal(checkPrebuiltBundle(stalePath).usable, false);
    const stderr = await sessionOnWorker('stale bundle', stalePath);
    const warnings = stderr.split('\n').filter((line) => BUNDLING_WARNING.test(line));
    assert.equal(warnings.length, 1, stderr);
    assert.match(warnings[0]!, /other workflow code/);
  });

  it('the fingerprint follows every file the entry requires, and only those', async () => {
    const root = join(dir, 'sources');
    await mkdir(join(root, 'lib'), { recursive: true });
    await writeFile(join(root, 'index.js'), 'const a = require("./a");\nconst lib = require("./lib");\nrequire("zod");\n');
    await writeFile(join(root, 'a.js'), 'exports.a = 1;\n');
    await writeFile(join(root, 'lib', 'index.js'), 'exports.lib = require("../a");\n');
    await writeFile(join(root, 'unused.js'), 'exports.unused = 1;\n');
    const first = workflowSources(join(root, 'index.js'), root);
    assert.deepEqual(first.files, ['a.js', 'index.js', join('lib', 'index.js')]);
    await writeFile(join(root, 'unused.js'), 'exports.unused = 2;\n');
    assert.equal(workflowSources(join(root, 'index.js'), root).fingerprint, first.fingerprint, 'a file nothing requires does not count');
    await writeFile(join(root, 'a.js'), 'exports.a = 2;\n');
    assert.notEqual(workflowSources(join(root, 'index.js'), root).fingerprint, first.fingerprint, 'a required file changed');
  });
});
