/**
 * `npm run screenshots`: the console's two pages as PNGs for the README (docs/console-fleet.png,
 * docs/console-session.png), taken in headless Chromium against a real dev server with a small fleet
 * of simulated sessions: one paused by its step budget after two compactions and a manual one, one
 * waiting for a message, one still working, one finished.
 */
import { join } from 'node:path';
import { compactNowUpdate } from '../src/session/definitions';
import { startConsole } from '../src/console/server';
import { launchChromium } from '../harness/browser';
import { repoRoot } from '../harness/repo';
import { eventually, startStack } from '../harness/stack';

const WINDOW = 32_768;

async function main(): Promise<void> {
  const stack = await startStack({ logLevel: 'ERROR' });
  const browser = await launchChromium();
  const running = await startConsole({ client: stack.client, sessions: stack.sessions, store: stack.store }, { host: '127.0.0.1', port: 0 });
  try {
    await stack.withWorker({ contextWindow: WINDOW, latencyMs: 150 }, async () => {
      const start = (sessionId: string, task: string, extra: { maxSteps?: number; awaitMessagesSeconds?: number } = {}) =>
        stack.sessions.start({ task, model: 'agentd-sim', contextWindow: WINDOW, ...extra }, { sessionId });
      const refactor = await start('refactor-billing', 'Refactor the billing module and keep the tests green [sim steps=80 output=12000-16000]', { maxSteps: 30 });
      await start('triage-issues', 'Triage the open issues and label them [sim steps=6]', { awaitMessagesSeconds: 3600 });
      await start('release-notes', 'Write the release notes for 2.4 [sim steps=4]');
      const state = (id: string) => stack.sessions.state(id);
      await eventually(async () => ((await state('release-notes')).status === 'completed' ? true : undefined), 'release-notes finished', 60_000);
      await eventually(async () => ((await state('triage-issues')).status === 'waiting_for_message' ? true : undefined), 'triage waiting', 60_000);
      await eventually(async () => ((await state(refactor.workflowId)).status === 'waiting_for_approval' ? true : undefined), 'refactor paused', 120_000);
      await refactor.executeUpdate(compactNowUpdate);
      // Started last, so it is still at work when the fleet is photographed.
      await start('migrate-schema', 'Migrate the orders schema to the new layout [sim steps=200 output=3000-9000]');
      await eventually(async () => ((await state('migrate-schema')).step >= 12 ? true : undefined), 'migrate at work', 60_000);

      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 560, deviceScaleFactor: 1 });
      await page.goto(running.baseUrl);
      await page.waitForSelector('tr[data-session="migrate-schema"] .gauge');
      await page.screenshot({ path: join(repoRoot(), 'docs', 'console-fleet.png') });

      await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
      await page.goto(new URL(`/sessions/${refactor.workflowId}`, running.baseUrl).href);
      await page.waitForFunction("(() => { const chart = document.getElementById('chart'); return chart !== null && chart.complete && chart.naturalWidth > 0 && document.querySelectorAll('#transcript .entry').length > 0; })()");
      // The top of the page, down into the transcript: the whole transcript is many screens long.
      await page.screenshot({ path: join(repoRoot(), 'docs', 'console-session.png'), clip: { x: 0, y: 0, width: 1280, height: 2200 }, captureBeyondViewport: true });
      await page.close();
      await stack.client.workflow.getHandle('migrate-schema').terminate('screenshots taken');
      await stack.client.workflow.getHandle('triage-issues').terminate('screenshots taken');
      await refactor.terminate('screenshots taken');
    });
    console.log('wrote docs/console-fleet.png and docs/console-session.png');
  } finally {
    await browser.close();
    await running.close();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
