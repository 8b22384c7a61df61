/** A session's page: state, chart, notices, memory and transcript, refreshed every few seconds; the controls. */
import type { Delegation, Notice, SessionPage, Spend, State } from './sessionPage';
import type { EntrySeqRun as SeqRun, TranscriptEntry as Entry } from './transcriptEntry';
import { ApiError, byId, el, gauge, getJson, int, markLive, percent, postJson, REFRESH_MS, showError, usd } from './common.js';

const sessionId = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const api = `/api/sessions/${encodeURIComponent(sessionId)}`;
byId('title').textContent = sessionId;
document.title = `agentd: ${sessionId}`;

function facts(target: HTMLElement, pairs: [string, string][]): void {
  target.replaceChildren(...pairs.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
}

function seqLink(seq: number): HTMLElement {
  return el('a', { href: `#seq-${seq}`, class: 'seq' }, `#${seq}`);
}

function runLinks(runs: readonly SeqRun[]): HTMLElement {
  const span = el('span', { class: 'runs' });
  runs.forEach(([first, last], index) => {
    if (index > 0) span.append(', ');
    span.append(seqLink(first));
    if (last !== first) span.append('–', seqLink(last));
  });
  return span;
}

/** `87%`: cached over prompt tokens, worked out from the counts (states from before the ratio have them too). */
function cacheShare(cached: number, prompt: number): string {
  return prompt > 0 ? percent(Math.min(cached, prompt) / prompt) : '–';
}

/**
 * `$0.0123 for 1 summary call: 14,700 prompt (82% cached) + 174 completion`; empty for a compaction
 * that called no model, and for a notice from before notices carried their cost.
 */
function compactionCost(spend: Spend | undefined): string {
  if (!spend) return '';
  const parts: string[] = [];
  if (spend.calls > 0) {
    parts.push(`${usd(spend.costUsd)} for ${spend.calls} summary call(s): ${int(spend.promptTokens)} prompt (${cacheShare(spend.cachedTokens, spend.promptTokens)} cached) + ${int(spend.completionTokens)} completion`);
  }
  if (spend.possiblyBilledCalls) parts.push(`${spend.possiblyBilledCalls} request(s) possibly billed`);
  return parts.join('; ');
}

function noticeItem(notice: Notice): HTMLElement {
  const item = el(
    'li',
    { class: notice.failed ? 'notice failed' : 'notice' },
    el('strong', {}, `step ${notice.step}: ${notice.strategy}`),
    ` (${notice.reason}) ${int(notice.tokensBefore)} → ${int(notice.tokensAfter)} tokens`,
  );
  if (notice.coveredSeqs.length) item.append('; summary covers ', runLinks(notice.coveredSeqs));
  if (notice.truncatedSeqs.length) item.append('; truncated ', runLinks(notice.truncatedSeqs));
  if (notice.replaced) item.append(`; ${notice.replaced} tool results cut to views`);
  if (notice.summarySeq !== undefined) item.append('; summary at ', seqLink(notice.summarySeq));
  const cost = compactionCost(notice.spend);
  if (cost) item.append(el('div', { class: 'notice-cost' }, `cost ${cost}`));
  if (notice.failed) item.append(el('div', { class: 'failure' }, `failed: ${notice.failed}`));
  if (notice.breaker) item.append(el('div', { class: 'breaker-change' }, `breaker ${notice.breaker}`));
  return item;
}

/** `87% of 217,700 prompt tokens (agent 88%, summaries 82%)`. */
function cacheHits(agent: Spend, summary: Spend): string {
  const prompt = agent.promptTokens + summary.promptTokens;
  const roles = summary.promptTokens > 0 ? ` (agent ${cacheShare(agent.cachedTokens, agent.promptTokens)}, summaries ${cacheShare(summary.cachedTokens, summary.promptTokens)})` : '';
  return `${cacheShare(agent.cachedTokens + summary.cachedTokens, prompt)} of ${int(prompt)} prompt tokens${roles}`;
}

let chartKey = '';

function sessionLink(id: string): HTMLElement {
  return el('a', { href: `/sessions/${encodeURIComponent(id)}` }, id);
}

/** Where the session sits in its tree: a link up to its parent, and one down to each child. */
function showTree(delegation: Delegation | undefined): void {
  byId('tree').hidden = delegation === undefined;
  if (!delegation) return;
  const parent = byId('parent');
  parent.replaceChildren(...(delegation.parentSessionId ? ['child of ', sessionLink(delegation.parentSessionId), ` (depth ${delegation.depth})`] : ['started by a person']));
  byId('children').replaceChildren(
    ...delegation.children.map((child) => {
      const spent = child.steps !== undefined ? `, ${int(child.steps)} steps, ${int(child.totalTokens ?? 0)} tokens, ${usd(child.costUsd ?? 0)}` : '';
      return el('li', {}, sessionLink(child.sessionId), ` ${child.status.replace(/_/g, ' ')}${child.outcome ? ` (${child.outcome})` : ''}, from step ${child.step}${spent}: ${child.task}`);
    }),
  );
}

function showState(page: SessionPage): void {
  const { state } = page;
  byId('gauge').replaceChildren(
    gauge({ fill: state.context.window ? state.context.tokens / state.context.window : 0, tokens: state.context.tokens, window: state.context.window, trigger: state.compaction.trigger }),
  );
  const budget: [string, string][] = [
    ['cost', usd(state.spend.costUsd) + (state.budget.maxCostUsd !== undefined ? ` of ${usd(state.budget.maxCostUsd)}` : '')],
    ['tokens billed', int(state.spend.totalTokens) + (state.budget.maxTotalTokens !== undefined ? ` of ${int(state.budget.maxTotalTokens)}` : '')],
    ['cache hits', cacheHits(state.spend.agent, state.spend.summary)],
    ['compaction cost', compactionCost(state.spend.summary) || 'none yet'],
    ...(state.spend.delegates ? [['children', `${usd(state.spend.delegates.costUsd)} for ${int(state.spend.delegates.calls)} call(s)`] as [string, string]] : []),
    ['steps', `${int(state.step)} of ${int(state.budget.maxSteps)}`],
    ['approvals', String(state.budget.approvals)],
  ];
  const possibly = (state.spend.agent.possiblyBilledCalls ?? 0) + (state.spend.summary.possiblyBilledCalls ?? 0);
  if (possibly > 0) budget.push(['possibly billed', `${possibly} request(s), tokens unknown`]);
  facts(byId('spend'), budget);
  const status: [string, string][] = [
    ['status', state.status.replace(/_/g, ' ')],
    ['model', state.model],
    ['turn / step', `${state.turn} / ${state.step}`],
    ['runs', String(state.runs)],
    ['pending messages', String(state.pendingMessages)],
  ];
  if (state.paused) status.push(['paused', `${state.paused.reason} (until ${new Date(state.paused.until).toLocaleString()})`]);
  if (state.outcome) status.push(['outcome', state.outcome]);
  facts(byId('status'), status);
  byId('status').className = state.paused ? 'paused' : '';

  showTree(state.delegation);

  const breaker = byId('breaker');
  breaker.hidden = state.compaction.warning === undefined;
  breaker.textContent = state.compaction.warning ?? '';

  const notices = state.compaction.notices;
  byId('notices').replaceChildren(
    ...(notices.length ? [...notices].reverse().map(noticeItem) : [el('li', { class: 'empty' }, 'no compaction yet')]),
    ...(state.compaction.noticesTotal > notices.length ? [el('li', { class: 'empty' }, `${state.compaction.noticesTotal - notices.length} older notices not kept by the state query`)] : []),
  );
  byId('warnings').replaceChildren(...state.warnings.map((warning) => el('li', { class: 'warning' }, warning)));
  byId('memory').textContent = page.memory?.text ?? '(no session memory yet)';
  byId('current-summary').textContent = page.summary?.text ?? '(no summary yet)';

  const key = `${state.step}:${state.compaction.noticesTotal}`;
  if (key !== chartKey) {
    chartKey = key;
    byId<HTMLImageElement>('chart').src = `${api}/chart.svg?at=${encodeURIComponent(key)}`;
  }
}

function entryItem(entry: Entry): HTMLElement {
  const head = el('div', { class: 'entry-head' }, el('a', { href: `#seq-${entry.seq}`, class: 'seq' }, `#${entry.seq}`), ` ${entry.role}`, entry.toolName ? ` · ${entry.toolName}` : undefined, ` · ${int(entry.tokens)} tokens`);
  const item = el('li', { id: `seq-${entry.seq}`, class: `entry ${entry.kind} role-${entry.role}${entry.isError ? ' error' : ''}` });
  if (entry.kind === 'summary') item.append(el('div', { class: 'boundary' }, 'compaction boundary: summary of ', runLinks(entry.covers ?? [])));
  if (entry.kind === 'memory') item.append(el('div', { class: 'boundary' }, 'session memory block'));
  if (entry.kind === 'view' && entry.replaces !== undefined) item.append(el('div', { class: 'boundary' }, 'view of the tool result ', seqLink(entry.replaces), ' (the whole original)'));
  item.append(head);
  if (entry.text) item.append(el('pre', { class: 'body' }, entry.text + (entry.cutChars ? `\n… ${int(entry.cutChars)} more characters in the store` : '')));
  for (const call of entry.toolCalls) item.append(el('pre', { class: 'call' }, `→ ${call.name}(${call.arguments})`));
  return item;
}

let lastSeq = 0;

async function loadTranscript(): Promise<void> {
  const page = await getJson<{ entries: Entry[]; more: boolean }>(`${api}/transcript?afterSeq=${lastSeq}`);
  const list = byId('transcript');
  for (const entry of page.entries) {
    list.append(entryItem(entry));
    lastSeq = Math.max(lastSeq, entry.seq);
  }
  byId('more').hidden = !page.more;
}

async function refresh(): Promise<void> {
  const error = byId('error');
  try {
    showState(await getJson<SessionPage>(api));
    await loadTranscript();
    error.hidden = true;
    markLive(true, `updated ${new Date().toLocaleTimeString()}`);
  } catch (problem) {
    showError(error, problem);
    markLive(false, problem instanceof ApiError && problem.status === 404 ? 'no such session' : 'not updating');
  }
}

function describeResult(control: string, result: unknown): string {
  if (control === 'compact' && typeof result === 'object' && result !== null) {
    const outcome = result as { compacted?: boolean; notice?: Notice; reason?: string };
    if (outcome.notice) {
      const n = outcome.notice;
      const cost = compactionCost(n.spend);
      return `compacted at step ${n.step}: ${n.strategy} (${n.reason}) ${int(n.tokensBefore)} → ${int(n.tokensAfter)} tokens${cost ? `; cost ${cost}` : ''}${n.failed ? `; failed: ${n.failed}` : ''}`;
    }
    return `nothing compacted (${outcome.reason ?? 'no reason given'})`;
  }
  if (control === 'approve' && typeof result === 'object' && result !== null && 'budget' in result) {
    const budget = (result as { budget: State['budget'] }).budget;
    const limits = [`maxSteps ${budget.maxSteps}`];
    if (budget.maxTotalTokens !== undefined) limits.push(`maxTotalTokens ${budget.maxTotalTokens}`);
    if (budget.maxCostUsd !== undefined) limits.push(`maxCostUsd ${budget.maxCostUsd}`);
    limits.push(`maxRepeatedToolCalls ${budget.maxRepeatedToolCalls}`);
    return `approved: ${limits.join(', ')}`;
  }
  if (control === 'interrupt' && typeof result === 'object' && result !== null && 'cut' in result) {
    const cut = result as { step: number; cut: string; continued: boolean };
    return `interrupted step ${cut.step} (${cut.cut} cut off); ${cut.continued ? 'the turn goes on' : 'it waits for a message'}`;
  }
  if (control === 'cancel') return 'cancellation requested';
  return 'sent';
}

/** Each control asks first, then POSTs; the answer (or the refusal, in the CLI's words) shows under the controls. */
function control(formId: string, name: string, question: () => string, body: (form: HTMLFormElement) => unknown): void {
  const form = byId<HTMLFormElement>(formId);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const output = byId('control-result');
    let payload: unknown;
    try {
      payload = body(form);
    } catch (problem) {
      output.hidden = false;
      output.className = 'result error';
      output.textContent = problem instanceof Error ? problem.message : String(problem);
      return;
    }
    if (!window.confirm(question())) return;
    output.hidden = false;
    output.className = 'result';
    output.textContent = `${name}…`;
    postJson(`${api}/${name}`, payload).then(
      (result) => {
        output.textContent = describeResult(name, result);
        form.reset();
        void refresh();
      },
      (problem: unknown) => {
        output.className = 'result error';
        output.textContent = problem instanceof Error ? problem.message : String(problem);
      },
    );
  });
}

function checked(form: HTMLFormElement, name: string): boolean {
  return (form.elements.namedItem(name) as HTMLInputElement).checked;
}

function field(form: HTMLFormElement, name: string): string {
  return (form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement).value.trim();
}

/** Numbers as numbers, so the server's schema (the CLI's) judges them; words stay words and are refused there. */
function numberField(form: HTMLFormElement, name: string): number | string | undefined {
  const text = field(form, name);
  if (text === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

control('message-form', 'message', () => `Send this message to ${sessionId}?`, (form) => ({
  text: (form.elements.namedItem('text') as HTMLTextAreaElement).value,
  ...(checked(form, 'now') ? { now: true } : {}),
}));
control('interrupt-form', 'interrupt', () => `Stop the model call or tool calls ${sessionId} is running now?`, (form) => ({
  reason: field(form, 'reason'),
  ...(checked(form, 'continue') ? { continue: true } : {}),
}));
control('compact-form', 'compact', () => `Compact the context of ${sessionId} now?`, () => ({}));
control(
  'approve-form',
  'approve',
  () => `Approve ${sessionId} to go on with these limits?`,
  (form) => {
    const request: Record<string, number | string> = {};
    for (const name of ['maxSteps', 'maxTotalTokens', 'maxCostUsd', 'maxRepeatedToolCalls']) {
      const value = numberField(form, name);
      if (value !== undefined) request[name] = value;
    }
    return request;
  },
);
control('cancel-form', 'cancel', () => `Cancel ${sessionId}? It stops at its next await; its transcript stays in the store.`, () => ({}));
byId('more').addEventListener('click', () => void loadTranscript());

void refresh();
setInterval(() => void refresh(), REFRESH_MS);
