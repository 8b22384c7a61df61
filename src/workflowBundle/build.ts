/**
 * The last part of `npm run build`: bundles the compiled workflow code once, into
 * dist/workflow-bundle.js, with the manifest that lets a worker check the bundle is its own.
 */
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { writeFile } from 'node:fs/promises';
import { currentManifest, DEFAULT_BUNDLE_PATH, manifestPathOf, WORKFLOW_BUNDLER_OPTIONS } from './prebuiltBundle';

export async function buildWorkflowBundle(bundlePath = DEFAULT_BUNDLE_PATH): Promise<void> {
  // The manifest is taken before bundling: files changed meanwhile make it stale, never falsely fresh.
  const manifest = currentManifest();
  const { code } = await bundleWorkflowCode({ ...WORKFLOW_BUNDLER_OPTIONS, logger: new DefaultLogger('WARN') });
  await writeFile(bundlePath, code);
  await writeFile(manifestPathOf(bundlePath), `${JSON.stringify(manifest, null, 2)}\n`);
}

if (require.main === module) {
  buildWorkflowBundle().catch((error: unknown) => {
    process.stderr.write(`workflow bundle: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
