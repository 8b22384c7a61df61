/** A Prometheus text exposition, as the tests and benchmarks that scrape an endpoint read it. */

export interface Sample {
  readonly name: string;
  /** The label block as written (`{a="1",b="2"}`), or '' when the sample has none. */
  readonly labels: string;
  readonly value: number;
}

/** The samples of an exposition; comment lines are left out. */
export function samplesOf(text: string): Sample[] {
  return text
    .split('\n')
    .map((line) => /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ name: match[1]!, labels: match[2] ?? '', value: Number(match[3]) }));
}

/** The sum over the samples whose name `name` matches and whose labels contain every one of `labels`. */
export function sumOf(samples: readonly Sample[], name: string | RegExp, ...labels: string[]): number {
  const named = typeof name === 'string' ? (sample: Sample) => sample.name === name : (sample: Sample) => name.test(sample.name);
  return samples.filter((sample) => named(sample) && labels.every((label) => sample.labels.includes(label))).reduce((sum, sample) => sum + sample.value, 0);
}

/** The exposition an endpoint serves; an answer other than 200 is an error naming the endpoint. */
export async function fetchExposition(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}
