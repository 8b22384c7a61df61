/** The fleet page: one page of sessions from the visibility index, refreshed every few seconds. */
import { byId, el, gauge, getJson, int, markLive, percent, REFRESH_MS, showError, usd } from './common.js';

interface FleetRow {
  sessionId: string;
  runStatus: string;
  status: string;
  step?: number;
  turn?: number;
  contextFill?: number;
  contextTokens?: number;
  window?: number;
  trigger?: number;
  costUsd?: number;
  cacheHitRatio?: number;
  model?: string;
  startedAt: string;
  closedAt?: string;
  paused?: string;
  breakerWarning?: string;
}

interface FleetPage {
  rows: FleetRow[];
  nextPageToken?: string;
}

const params = new URLSearchParams(location.search);
const form = byId<HTMLFormElement>('filters');
const statusSelect = form.elements.namedItem('status') as HTMLSelectElement;
const modelInput = form.elements.namedItem('model') as HTMLInputElement;
statusSelect.value = params.get('status') ?? '';
modelInput.value = params.get('model') ?? '';

function apiQuery(): string {
  const query = new URLSearchParams();
  for (const name of ['status', 'model', 'page']) {
    const value = params.get(name);
    if (value) query.set(name, value);
  }
  return query.toString();
}

function row(session: FleetRow): HTMLElement {
  const link = el('a', { href: `/sessions/${encodeURIComponent(session.sessionId)}` }, session.sessionId);
  const status = el('span', { class: `status status-${session.status}` }, session.status.replace(/_/g, ' '));
  const why = el('td', { class: 'why' }, session.paused ?? '');
  if (session.breakerWarning) why.append(el('div', { class: 'breaker-inline' }, session.breakerWarning));
  return el(
    'tr',
    { 'data-session': session.sessionId },
    el('td', {}, link),
    el('td', {}, status),
    el('td', {}, session.model ?? '–'),
    el('td', { class: 'num' }, `${session.turn ?? '–'} / ${session.step === undefined ? '–' : int(session.step)}`),
    el('td', {}, session.contextFill === undefined ? '–' : gauge({ fill: session.contextFill, tokens: session.contextTokens, window: session.window, trigger: session.trigger })),
    el('td', { class: 'num' }, session.costUsd === undefined ? '–' : usd(session.costUsd), session.cacheHitRatio === undefined ? undefined : el('div', { class: 'cache-hits' }, `${percent(session.cacheHitRatio)} cached`)),
    why,
    el('td', {}, session.startedAt ? new Date(session.startedAt).toLocaleString() : ''),
  );
}

let nextPageToken: string | undefined;

async function refresh(): Promise<void> {
  const error = byId('error');
  try {
    const page = await getJson<FleetPage>(`/api/sessions?${apiQuery()}`);
    const body = byId('fleet').querySelector('tbody');
    if (!body) return;
    body.replaceChildren(...(page.rows.length ? page.rows.map(row) : [el('tr', {}, el('td', { colspan: '8', class: 'empty' }, 'no sessions match'))]));
    nextPageToken = page.nextPageToken;
    byId<HTMLButtonElement>('next').disabled = nextPageToken === undefined;
    byId<HTMLButtonElement>('first').disabled = !params.get('page');
    error.hidden = true;
    markLive(true, `updated ${new Date().toLocaleTimeString()}`);
  } catch (problem) {
    showError(error, problem);
    markLive(false, 'not updating');
  }
}

function go(changes: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(changes)) {
    if (value) params.set(name, value);
    else params.delete(name);
  }
  location.search = params.toString();
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  go({ status: statusSelect.value, model: modelInput.value.trim(), page: undefined });
});
byId('next').addEventListener('click', () => go({ page: nextPageToken }));
byId('first').addEventListener('click', () => go({ page: undefined }));

void refresh();
setInterval(() => void refresh(), REFRESH_MS);
