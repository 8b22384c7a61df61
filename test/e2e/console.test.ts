/**
 * The operator's console in a real headless Chromium against a real dev server, store, worker and
 * simulated session: the fleet page lists the session with its gauge, its page draws the chart, a
 * click on "compact now" shows the notice the update returned, approve lets the paused session go
 * on, and transcript text is shown as text. Bound beyond loopback, a request without the token is
 * refused, and so is a state-changing request from another origin.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { startConsole, type RunningConsole } from '../../src/console/server';
import { ConsoleSettingsSchema } from '../../src/console/settings';
import { compactNowUpdate } from '../../src/session/definitions';
import type { CompactNowResult, SessionResult, SessionState } from '../../src/session/state';
import { chromiumMissing, launchChromium } from '../../harness/browser';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { agentdOn, eventually, startStack, type Stack } from '../../harness/stack';

/** `text` as a regular expression that matches it literally. */
function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Large enough that the paused session is under its trigger: the compaction shown is the one the click asked for. */
const WINDOW = 65_536;
const TOKEN = 'console-test-token-0123456789';
const INJECTED = '<img id="injected" src="x"> <b>not bold</b> & more';

describe('operator console', { skip: chromiumMissing() }, () => {
  let stack: Stack;
  let browser: Browser;
  let local: RunningConsole;
  before(async () => {
    stack = await startStack();
    browser = await launchChromium();
    local = await startConsole({ client: stack.client, sessions: stack.sessions, store: stack.store }, { host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await browser?.close();
    await local?.close();
    await stack?.stop();
  });

  /** A page that accepts every confirmation and records any script error or refused resource. */
  async function openPage(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('dialog', (dialog) => void dialog.accept());
    page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
    page.on('console', (message) => {
      // The refused approval below answers 409 on purpose; any other failed load or CSP refusal counts.
      if (message.type() === 'error' && !/status of 409/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    return { page, problems };
  }

  /** Waits until an element matching `selector` has text matching `pattern` (the page refreshes every few seconds). */
  async function waitForText(page: Page, selector: string, pattern: RegExp, timeout = 20_000): Promise<void> {
    // A string, so this file needs no DOM types: it runs in the page.
    const check = `[...document.querySelectorAll(${JSON.stringify(selector)})].some((element) => new RegExp(${JSON.stringify(pattern.source)}, ${JSON.stringify(pattern.flags)}).test(element.textContent ?? ''))`;
    await page.waitForFunction(check, { timeout });
  }

  function textOf(page: Page, selector: string): Promise<string> {
    return page.$eval(selector, (element) => element.textContent ?? '');
  }

  function state(sessionId: string): Promise<SessionState> {
    return stack.sessions.state(sessionId);
  }

  it('lists the session with its gauge, charts it, compacts and approves it from its page, and shows its text as text', async () => {
    await stack.withWorker({ contextWindow: WINDOW }, async (simulator) => {
      const handle = await stack.sessions.start({
        task: 'console job [sim steps=24 output=12000-16000]',
        model: 'agentd-sim',
        contextWindow: WINDOW,
        maxSteps: 10,
        // A short verbatim tail, so that ten steps leave older results for "compact now" to work on.
        compaction: { tailCapTokens: 4096 },
      });
      const sessionId = handle.workflowId;
      await eventually(async () => ((await state(sessionId)).status === 'waiting_for_approval' ? true : undefined), 'the session paused at maxSteps');
      const { page, problems } = await openPage();

      await page.goto(local.baseUrl);
      const row = `tr[data-session="${sessionId}"]`;
      await page.waitForSelector(`${row} .gauge`);
      const paused = await state(sessionId);
      const fill = Number(await page.$eval(`${row} .gauge`, (element) => element.getAttribute('data-fill')));
      assert.ok(Math.abs(fill - paused.context.tokens / paused.context.window) < 0.002, `gauge ${fill} for ${paused.context.tokens}/${paused.context.window}`);
      assert.ok(fill > 0.1, `the session's context fills part of its window (${fill})`);
      assert.ok((await page.$(`${row} .gauge-trigger`)) !== null, 'the gauge marks the trigger');
      const rowText = await textOf(page, row);
      assert.match(rowText, /waiting for approval/);
      assert.match(rowText, /maxSteps 10/, 'the row says why the session is paused');
      assert.ok(rowText.includes(`${Math.round(paused.spend.cacheHitRatio! * 100)}% cached`), `the row has the cache-hit ratio: ${rowText}`);

      // The filters go to the visibility query: the paused session is among the paused, not among the finished.
      await page.select('#filters select[name="status"]', 'waiting_for_approval');
      await Promise.all([page.waitForNavigation(), page.click('#filters button')]);
      assert.equal(new URL(page.url()).searchParams.get('status'), 'waiting_for_approval');
      await page.waitForSelector(row, { timeout: 20_000 });
      await page.type('#filters input[name="model"]', 'some-other-model');
      await Promise.all([page.waitForNavigation(), page.click('#filters button')]);
      await waitForText(page, '#fleet tbody', /no sessions match/);
      await page.goto(`${local.baseUrl}?status=waiting_for_approval`);
      await page.waitForSelector(row, { timeout: 20_000 });

      await Promise.all([page.waitForNavigation(), page.click(`${row} a`)]);
      assert.equal(new URL(page.url()).pathname, `/sessions/${sessionId}`);
      await page.waitForFunction("(() => { const chart = document.getElementById('chart'); return chart !== null && chart.complete && chart.naturalWidth > 0; })()");
      const chart = await (await fetch(new URL(`/api/sessions/${sessionId}/chart.svg`, local.baseUrl))).text();
      assert.match(chart, /^<svg/);
      assert.equal((chart.match(/<polyline /g) ?? []).length, 1, 'one line of tokens per step');
      assert.match(chart, new RegExp(`window ${WINDOW.toLocaleString('en-US')}`));
      assert.match(chart, new RegExp(`trigger ${paused.compaction.trigger.toLocaleString('en-US')}`));
      const points = /<polyline points="([^"]*)"/.exec(chart)?.[1]?.split(' ') ?? [];
      assert.equal(points.length, paused.step, 'a point per step taken');

      const noticesBefore = paused.compaction.noticesTotal;
      await page.click('#compact-form button');
      await waitForText(page, '#control-result', /compacted at step|nothing compacted|refused|error/i);
      const compactText = await textOf(page, '#control-result');
      assert.match(compactText, /^compacted at step \d+: (prune|summary|truncate) \(manual\) [\d,]+ → [\d,]+ tokens/);
      const compacted = await state(sessionId);
      assert.equal(compacted.compaction.noticesTotal, noticesBefore + 1);
      assert.equal(compacted.compaction.lastManual?.compacted, true);
      const manual = compacted.compaction.lastManual?.notice;
      assert.ok(manual);
      assert.ok(compactText.includes(`${manual.tokensBefore.toLocaleString('en-US')} → ${manual.tokensAfter.toLocaleString('en-US')}`), compactText);
      await waitForText(page, '#notices li.notice', /\(manual\)/);
      // The pause holds the spend still: the page shows what the state says.
      const { agent, summary } = compacted.spend;
      const prompt = agent.promptTokens + summary.promptTokens;
      const hits = `cache hits${Math.round(compacted.spend.cacheHitRatio! * 100)}% of ${prompt.toLocaleString('en-US')} prompt tokens`;
      await waitForText(page, '#spend', new RegExp(escaped(hits)));
      const compactionCost = summary.calls > 0 ? `compaction cost$${summary.costUsd.toFixed(4)} for ${summary.calls} summary call(s)` : 'compaction costnone yet';
      assert.ok((await textOf(page, '#spend')).includes(compactionCost), `${compactionCost} in ${await textOf(page, '#spend')}`);
      if (manual.strategy !== 'summary') assert.equal(await page.$('#notices li.notice .notice-cost'), null, 'a compaction that called no model shows no cost');
      assert.equal(compacted.status, 'waiting_for_approval', 'compacting does not end the pause');

      // Interrupt reaches the workflow's validator: a paused session has no step in flight to cut off.
      await page.type('#interrupt-form input[name="reason"]', 'just checking');
      await page.click('#interrupt-form button');
      await waitForText(page, '#control-result', /refused|interrupted/);
      assert.match(await textOf(page, '#control-result'), /^refused: session .* has no model call or tool call in flight; nothing to interrupt$/);

      // The message waits for the next turn; its text must come back as text, not markup.
      await page.type('#message-form textarea', INJECTED);
      await page.click('#message-form button');
      await waitForText(page, '#control-result', /^sent$/);

      const requestsBefore = simulator.stats().requests;
      await page.type('#approve-form input[name="maxSteps"]', '3');
      await page.click('#approve-form button');
      await waitForText(page, '#control-result', /refused/);
      assert.match(await textOf(page, '#control-result'), /^refused: .*maxSteps: still exhausted/, 'the workflow validator\'s words, as `agentd approve` prints them');
      // A refused approval keeps what was typed, to be corrected: select it and type over it.
      await page.click('#approve-form input[name="maxSteps"]', { clickCount: 3 });
      await page.type('#approve-form input[name="maxSteps"]', '40');
      await page.click('#approve-form button');
      await waitForText(page, '#control-result', /^approved:/);
      assert.match(await textOf(page, '#control-result'), /^approved: maxSteps 40,/);

      const result = await stack.sessions.result(sessionId);
      assert.equal(result.outcome, 'finished');
      assert.ok(result.steps > 10, `the session went on past its pause (${result.steps} steps)`);
      assert.ok(simulator.stats().requests > requestsBefore, 'the model was called again after approve');
      await waitForText(page, '#status', /completed/);
      await waitForText(page, '#transcript .entry.role-user pre', new RegExp(`^${escaped(INJECTED)}$`));
      assert.equal(await page.$('#injected'), null, 'no element was made from the transcript text');
      assert.equal(await page.$('#transcript b'), null);
      assert.deepEqual(problems, [], 'no script error and no resource refused by the CSP');
      await page.close();
    });
  });

  it("shows what a summary compaction cost, in its notice and in the session's spend", async () => {
    await stack.withWorker({ contextWindow: 32_768 }, async () => {
      const handle = await stack.sessions.start({
        task: 'console job then wait [sim steps=16 output=4000-9000]',
        model: 'agentd-sim',
        contextWindow: 32_768,
        awaitMessagesSeconds: 300,
      });
      const sessionId = handle.workflowId;
      await eventually(async () => ((await state(sessionId)).status === 'waiting_for_message' ? true : undefined), 'the task turn finished', 60_000);
      const answer: CompactNowResult = await handle.executeUpdate(compactNowUpdate);
      const spend = answer.notice?.spend;
      assert.ok(answer.notice?.strategy === 'summary' && spend, JSON.stringify(answer));
      const { page, problems } = await openPage();
      await page.goto(`${local.baseUrl}sessions/${sessionId}`);
      const cost = `$${spend.costUsd.toFixed(4)} for 1 summary call(s): ${spend.promptTokens.toLocaleString('en-US')} prompt (${Math.round(spend.cacheHitRatio * 100)}% cached)`;
      await waitForText(page, '#notices li.notice .notice-cost', new RegExp(`^cost ${escaped(cost)}`));
      const summary = (await state(sessionId)).spend.summary;
      assert.ok((await textOf(page, '#spend')).includes(`compaction cost$${summary.costUsd.toFixed(4)} for ${summary.calls} summary call(s)`), await textOf(page, '#spend'));
      assert.deepEqual(problems, []);
      await page.close();
      await handle.cancel();
    });
  });

  it("links a parent's page to its children and each child's page back to its parent", async () => {
    await stack.withWorker({}, async () => {
      const parentId = 'console-tree';
      const task = ['[sim steps=1] two helpers', '[sim call delegate {"task":"part one [sim steps=1]"}]', '[sim also delegate {"task":"part two [sim steps=1]"}]'].join('\n');
      await stack.sessions.start({ task, model: 'agentd-sim' }, { sessionId: parentId });
      const result: SessionResult = await stack.sessions.result(parentId);
      const childIds = result.finalState!.delegation!.children.map((child) => child.sessionId);
      const { page, problems } = await openPage();
      await page.goto(`${local.baseUrl}sessions/${parentId}`);
      await waitForText(page, '#children', new RegExp(`${escaped(childIds[1]!)} completed \\(finished\\)`));
      assert.deepEqual(await page.$$eval('#children a', (links) => links.map((link) => link.getAttribute('href'))), childIds.map((id) => `/sessions/${id}`));
      assert.match(await textOf(page, '#spend'), /children\$\d+\.\d{4} for \d+ call\(s\)/);
      await Promise.all([page.waitForNavigation(), page.click('#children a')]);
      await waitForText(page, '#parent', new RegExp(`child of ${parentId} \\(depth 1\\)`));
      assert.deepEqual(problems, []);
      await page.close();
    });
  });

  it('bound beyond loopback, refuses requests without the token and cross-site posts, and lets the token link in', async () => {
    const unguarded = ConsoleSettingsSchema.safeParse({ host: '0.0.0.0', port: 0 });
    assert.equal(unguarded.success, false, 'no console beyond loopback without a token');
    assert.match(JSON.stringify(unguarded.error?.issues), /needs a token/);

    const guarded = await startConsole({ client: stack.client, sessions: stack.sessions, store: stack.store }, { host: '0.0.0.0', port: 0, token: TOKEN });
    try {
      const { port } = guarded.server.address() as AddressInfo;
      assert.equal((guarded.server.address() as AddressInfo).address, '0.0.0.0');
      // Requests go to this machine's loopback: the server listens on every address, loopback included.
      const base = `http://127.0.0.1:${port}`;
      for (const path of ['/', '/api/sessions', '/assets/fleet.js', '/sessions/x']) {
        const refused = await fetch(`${base}${path}`);
        assert.equal(refused.status, 401, `${path} without the token`);
        assert.match(refused.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      }
      assert.equal((await fetch(`${base}/api/sessions`, { headers: { Authorization: 'Bearer not-the-token-at-all' } })).status, 401);
      assert.equal((await fetch(`${base}/?token=wrong`)).status, 401);
      const listed = await fetch(`${base}/api/sessions`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      assert.equal(listed.status, 200);
      const malformed = await fetch(`${base}/api/sessions/%E0%A4%A`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      assert.equal(malformed.status, 400, 'a path that is not valid percent-encoding');
      const csp = listed.headers.get('content-security-policy') ?? '';
      for (const directive of ["script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "connect-src 'self'"]) assert.ok(csp.includes(directive), csp);

      const sessionId = ((await listed.json()) as { rows: { sessionId: string }[] }).rows[0]?.sessionId ?? 'none';
      const post = (headers: Record<string, string>) =>
        fetch(`${base}/api/sessions/${sessionId}/cancel`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, ...headers }, body: '{}' });
      assert.equal((await post({ 'Content-Type': 'application/json' })).status, 403, 'a POST without Origin');
      assert.equal((await post({ 'Content-Type': 'application/json', Origin: 'http://evil.example' })).status, 403, 'a POST from another origin');
      assert.equal((await post({ 'Content-Type': 'text/plain', Origin: base })).status, 403, 'a form-like POST');
      assert.equal((await fetch(`${base}/api/sessions/${sessionId}/cancel`, { method: 'PUT', headers: { Authorization: `Bearer ${TOKEN}`, Origin: base } })).status, 403);

      const { page, problems } = await openPage();
      await page.goto(`${base}/?token=${TOKEN}`);
      assert.equal(page.url(), `${base}/`, 'the token leaves the address bar once the cookie is set');
      await page.waitForSelector(`tr[data-session="${sessionId}"]`);
      const cookies = await browser.cookies();
      const cookie = cookies.find((candidate) => candidate.name === 'agentd_console');
      assert.ok(cookie?.httpOnly && cookie.sameSite === 'Strict', JSON.stringify(cookie));
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await guarded.close();
    }
  });

  it('agentd console refuses to listen beyond loopback without a token, and serves the fleet with one', async () => {
    const agentd = agentdOn(stack);
    const refused = await agentd('console', '--host', '0.0.0.0', '--port', '0');
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /binding beyond loopback needs a token: set AGENTD_CONSOLE_TOKEN or pass --token-file/);

    const child = spawnNode(entryPoint('cli/main'), ['console', '--host', '0.0.0.0', '--port', '0'], {
      TEMPORAL_ADDRESS: stack.temporal.address,
      AGENTD_STORE: stack.storeFile,
      AGENTD_CONSOLE_TOKEN: TOKEN,
    });
    const done = finished(child);
    try {
      let out = '';
      const printed = await new Promise<string>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const link = /agentd console on (\S+)/.exec(out)?.[1];
          if (link) resolve(link);
        });
        child.once('exit', (code) => reject(new Error(`agentd console exited ${code} before listening`)));
      });
      const link = new URL(printed);
      assert.equal(link.search, '', 'the printed address carries no token');
      assert.ok(!out.includes(TOKEN), `the token is never printed: ${out}`);
      const base = `http://127.0.0.1:${link.port}`;
      assert.equal((await fetch(`${base}/api/sessions`)).status, 401);
      const listed = await fetch(`${base}/api/sessions`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      assert.equal(listed.status, 200);
      assert.ok(((await listed.json()) as { rows: unknown[] }).rows.length > 0, 'the sessions of this server, through the command');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal((await done).code, 0, 'SIGTERM stops it cleanly');
  });

  it('without a token answers only to a loopback host name (no DNS rebinding)', async () => {
    const { port } = local.server.address() as AddressInfo;
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest({ host: '127.0.0.1', port, path: '/api/sessions', headers: { Host: host } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end();
      });
    assert.equal(await status(`attacker.example:${port}`), 421);
    assert.equal(await status(`localhost:${port}`), 200);
  });
});
