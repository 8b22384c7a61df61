/** What each benchmark hands the runner: figures for bench.json and Markdown lines for bench.md. */

export interface BenchResult {
  /** The `--only` name. */
  readonly id: string;
  readonly title: string;
  /** Wall-clock time of the benchmark, setup included. */
  readonly elapsedMs: number;
  /** Plain JSON figures, written to bench.json as they are. */
  readonly figures: Record<string, unknown>;
  /** Markdown for bench.md: tables and sentences quoting the figures. */
  readonly markdown: readonly string[];
}

export type BenchBody = Omit<BenchResult, 'id' | 'title' | 'elapsedMs'>;

/** 12,345 */
export function int(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A value with `digits` decimals. */
export function num(value: number, digits = 1): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** 12.3× — a ratio of two figures measured in the same run. */
export function ratio(numerator: number, denominator: number): string {
  if (!Number.isFinite(numerator / denominator) || denominator === 0) return 'n/a';
  const value = numerator / denominator;
  return `${value >= 100 ? int(value) : num(value, value >= 10 ? 1 : 2)}×`;
}

export function kb(bytes: number): string {
  return `${num(bytes / 1024, 1)} KB`;
}

export function mb(bytes: number): string {
  return `${num(bytes / (1024 * 1024), 2)} MB`;
}

/** A Markdown table from a header and rows of cells. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
}

/** Prints a line as the benchmark goes, so a long run shows progress. */
export function say(line: string): void {
  console.log(`  ${line}`);
}
