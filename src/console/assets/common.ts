/**
 * What both pages share: building elements (text always through textContent, never HTML), calls
 * to the console's API with its errors as words, the context gauge, and the confirmation before a
 * control acts.
 */

type Child = Node | string | undefined;

export function el(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'class') element.className = value;
    else element.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === undefined) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function answerOf<T>(response: Response): Promise<T> {
  const body: unknown = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = typeof body === 'object' && body !== null && 'error' in body ? String(body.error) : response.statusText;
    throw new ApiError(response.status, error);
  }
  return body as T;
}

export async function getJson<T>(path: string): Promise<T> {
  return answerOf<T>(await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } }));
}

/** Controls are POSTs of JSON: the server refuses anything else, and any other origin. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return answerOf<T>(
    await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  );
}

export function showError(target: HTMLElement, error: unknown): void {
  target.hidden = false;
  target.textContent = error instanceof Error ? error.message : String(error);
}

export function int(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function usd(value: number): string {
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

/** `87%`: a share of 0 to 1 as a whole percentage. */
export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

export interface GaugeFigures {
  /** 0..1 of the window. */
  fill: number;
  tokens?: number | undefined;
  window?: number | undefined;
  trigger?: number | undefined;
}

/** A bar of the context against its window, with the auto-compaction trigger marked when known. */
export function gauge(figures: GaugeFigures): HTMLElement {
  const fill = Math.max(0, Math.min(1, figures.fill));
  const triggerFill = figures.trigger !== undefined && figures.window ? figures.trigger / figures.window : undefined;
  const level = triggerFill !== undefined && fill >= triggerFill ? 'over' : fill >= 0.7 ? 'high' : 'ok';
  const bar = el('div', { class: `gauge-fill ${level}` });
  bar.style.width = `${(fill * 100).toFixed(1)}%`;
  const track = el('div', { class: 'gauge-track' }, bar);
  if (triggerFill !== undefined) {
    const mark = el('div', { class: 'gauge-trigger', title: `trigger ${int(figures.trigger ?? 0)}` });
    mark.style.left = `${(Math.min(1, triggerFill) * 100).toFixed(1)}%`;
    track.append(mark);
  }
  const label =
    figures.tokens !== undefined && figures.window !== undefined
      ? `${int(figures.tokens)} / ${int(figures.window)} (${percent(fill)})${figures.trigger !== undefined ? `, trigger ${int(figures.trigger)}` : ''}`
      : `${percent(fill)} of the window`;
  return el('div', { class: 'gauge', 'data-fill': fill.toFixed(3) }, track, el('span', { class: 'gauge-label' }, label));
}

/** The live marker in the header: when the page last refreshed, or why it could not. */
export function markLive(ok: boolean, text: string): void {
  const live = document.getElementById('live');
  if (!live) return;
  live.className = ok ? 'live' : 'live stale';
  live.textContent = text;
}

export const REFRESH_MS = 3000;
