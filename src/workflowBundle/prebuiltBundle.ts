/**
 * The workflow bundle `npm run build` writes (dist/workflow-bundle.js) and the manifest beside it
 * that says which compiled workflow code it was built from. A worker loads the bundle in a few
 * milliseconds instead of bundling for seconds at every start, but only when the manifest matches
 * the workflow code it is running: a stale bundle would replay histories with other code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { workflowSources } from './workflowSources';

/** dist/, where tsc puts this file's directory (dist/src/workflowBundle) two levels down. */
const DIST = join(__dirname, '..', '..');
/** The compiled workflow entry the bundle is built from. */
export const WORKFLOWS_ENTRY = join(DIST, 'src', 'workflows', 'index.js');
export const DEFAULT_BUNDLE_PATH = join(DIST, 'workflow-bundle.js');
/** How every agentd bundle is built: the entry, and the modules every cached session shares (src/workflows/sharedZod.ts). */
export const WORKFLOW_BUNDLER_OPTIONS = {
  workflowsPath: WORKFLOWS_ENTRY,
  preloadModules: [join(DIST, 'src', 'workflows', 'sharedZod.js')],
};
/** Overrides where the worker looks for the bundle (a deployment that keeps it elsewhere, a test). */
export const BUNDLE_PATH_ENV = 'AGENTD_WORKFLOW_BUNDLE';

export const BundleManifestSchema = z.strictObject({
  /** Hash of the compiled workflow files the bundle holds (`workflowSources`). */
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  /** The SDK's workflow package the bundle embeds: a different one is a different bundle. */
  workflowSdkVersion: z.string().min(1),
  files: z.array(z.string()),
  builtAt: z.string(),
});
export type BundleManifest = z.infer<typeof BundleManifestSchema>;

export function manifestPathOf(bundlePath: string): string {
  return bundlePath.replace(/\.js$/, '') + '.manifest.json';
}

export function bundlePathFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[BUNDLE_PATH_ENV];
  return configured === undefined || configured === '' ? DEFAULT_BUNDLE_PATH : configured;
}

export function workflowSdkVersion(): string {
  return z.object({ version: z.string() }).parse(JSON.parse(readFileSync(require.resolve('@temporalio/workflow/package.json'), 'utf8'))).version;
}

/** The manifest of the workflow code this process would run, for the build to write. */
export function currentManifest(): BundleManifest {
  const sources = workflowSources(WORKFLOWS_ENTRY, DIST);
  return { fingerprint: sources.fingerprint, workflowSdkVersion: workflowSdkVersion(), files: [...sources.files], builtAt: new Date().toISOString() };
}

/** The bundle at `bundlePath` is usable, or why not (a sentence that fits in a warning). */
export type BundleCheck = { readonly usable: true; readonly codePath: string } | { readonly usable: false; readonly why: string };

export function checkPrebuiltBundle(bundlePath: string): BundleCheck {
  const manifestPath = manifestPathOf(bundlePath);
  if (!existsSync(bundlePath) || !existsSync(manifestPath)) {
    return { usable: false, why: `no prebuilt workflow bundle at ${bundlePath} (or its manifest)` };
  }
  const parsed = BundleManifestSchema.safeParse(safeJson(readFileSync(manifestPath, 'utf8')));
  if (!parsed.success) return { usable: false, why: `the manifest of the workflow bundle at ${bundlePath} is unreadable` };
  const current = workflowSources(WORKFLOWS_ENTRY, DIST);
  if (parsed.data.fingerprint !== current.fingerprint) {
    return { usable: false, why: `the workflow bundle at ${bundlePath} was built from other workflow code than this worker's (stale build)` };
  }
  const sdk = workflowSdkVersion();
  if (parsed.data.workflowSdkVersion !== sdk) {
    return { usable: false, why: `the workflow bundle at ${bundlePath} embeds @temporalio/workflow ${parsed.data.workflowSdkVersion}, not the installed ${sdk}` };
  }
  return { usable: true, codePath: bundlePath };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
