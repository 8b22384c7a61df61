/** A hand-written SVG line chart of context tokens per step, with the window, the trigger and compactions marked. */

interface ChartSeries {
  readonly label: string;
  readonly color: string;
  /** y value per step; index 0 is step 1. */
  readonly values: readonly number[];
  readonly dashed?: boolean;
}

interface ChartMark {
  readonly step: number;
  readonly label: string;
  readonly before?: number;
  readonly after?: number;
}

export interface ContextChart {
  readonly title: string;
  readonly steps: number;
  readonly window: number;
  readonly trigger: number;
  readonly series: readonly ChartSeries[];
  readonly marks: readonly ChartMark[];
  /** A request the endpoint refused, drawn as a cross at the window line. */
  readonly refused?: { readonly step: number; readonly label: string };
}

const WIDTH = 960;
const HEIGHT = 480;
const PAD = { left: 72, right: 24, top: 48, bottom: 64 };

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A round tick step giving about `count` ticks over `max`. */
function tickStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? power * 10;
}

export function renderContextChart(chart: ContextChart): string {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const yMax = chart.window * 1.08;
  const x = (step: number) => Math.round((PAD.left + ((step - 1) / Math.max(1, chart.steps - 1)) * plotW) * 10) / 10;
  const y = (tokens: number) => Math.round((PAD.top + plotH - (Math.min(tokens, yMax) / yMax) * plotH) * 10) / 10;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escape(chart.title)}</text>`,
  ];
  const yStep = tickStep(yMax, 6);
  for (let tokens = 0; tokens <= yMax; tokens += yStep) {
    out.push(`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(tokens)}" y2="${y(tokens)}" stroke="#eee"/>`);
    out.push(`<text x="${PAD.left - 6}" y="${y(tokens) + 4}" text-anchor="end">${tokens >= 1000 ? `${tokens / 1000}K` : tokens}</text>`);
  }
  const xStep = tickStep(chart.steps, 10);
  for (let step = xStep; step <= chart.steps; step += xStep) {
    out.push(`<text x="${x(step)}" y="${PAD.top + plotH + 16}" text-anchor="middle">${step}</text>`);
  }
  out.push(`<text x="${PAD.left + plotW / 2}" y="${HEIGHT - 30}" text-anchor="middle">step</text>`);
  out.push(`<text transform="translate(16 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle">context tokens</text>`);
  out.push(`<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);

  for (const [value, color, label] of [
    [chart.window, '#c0392b', `window ${chart.window.toLocaleString('en-US')}`],
    [chart.trigger, '#e67e22', `trigger ${chart.trigger.toLocaleString('en-US')}`],
  ] as const) {
    out.push(`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(value)}" y2="${y(value)}" stroke="${color}" stroke-dasharray="6 4" stroke-width="1.5"/>`);
    out.push(`<text x="${WIDTH - PAD.right - 4}" y="${y(value) - 5}" text-anchor="end" fill="${color}">${escape(label)}</text>`);
  }
  for (const mark of chart.marks) {
    out.push(`<line x1="${x(mark.step)}" x2="${x(mark.step)}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#8e44ad" stroke-width="1" stroke-opacity="0.6"/>`);
    out.push(`<text x="${x(mark.step) + 3}" y="${PAD.top + 12}" fill="#8e44ad" font-size="10">${escape(mark.label)}</text>`);
    if (mark.before !== undefined && mark.after !== undefined) {
      out.push(`<line x1="${x(mark.step)}" x2="${x(mark.step)}" y1="${y(mark.before)}" y2="${y(mark.after)}" stroke="#8e44ad" stroke-width="3"/>`);
    }
  }
  for (const series of chart.series) {
    const points = series.values.map((value, index) => `${x(index + 1)},${y(value)}`).join(' ');
    out.push(`<polyline points="${points}" fill="none" stroke="${series.color}" stroke-width="1.8"${series.dashed ? ' stroke-dasharray="4 3"' : ''}/>`);
  }
  if (chart.refused) {
    const cx = x(chart.refused.step);
    const cy = y(chart.window);
    out.push(`<path d="M${cx - 6},${cy - 6} L${cx + 6},${cy + 6} M${cx - 6},${cy + 6} L${cx + 6},${cy - 6}" stroke="#c0392b" stroke-width="2.5"/>`);
    out.push(`<text x="${cx + 9}" y="${cy + 16}" fill="#c0392b">${escape(chart.refused.label)}</text>`);
  }
  // Legend under the plot.
  let legendX = PAD.left;
  const legend = [...chart.series.map((series) => ({ label: series.label, color: series.color })), { label: 'compaction (bar: estimate before → after)', color: '#8e44ad' }];
  for (const item of legend) {
    out.push(`<rect x="${legendX}" y="${HEIGHT - 18}" width="14" height="4" fill="${item.color}"/>`);
    out.push(`<text x="${legendX + 18}" y="${HEIGHT - 12}">${escape(item.label)}</text>`);
    legendX += 28 + item.label.length * 6.2;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
