/** A tool that waits a given time and says which call it was, for timing how a step's calls run. */
import { z } from 'zod';
import { defineTool, type Tool, type ToolEffect } from '../src/tools/tool';

/** One run of a sleep tool, by the worker's clock. */
export interface Span {
  label: string;
  start: number;
  end: number;
}

/** `name` waits `ms` and answers `<name> <label> done`; each run's start and end are pushed to `spans`. */
export function sleepTool(name: string, effect: ToolEffect, spans: Span[] = []): Tool {
  return defineTool({
    name,
    description: `waits ms milliseconds, then answers (${effect})`,
    input: z.object({ label: z.string(), ms: z.number().int().min(0).max(5_000) }),
    effect,
    async run({ label, ms }) {
      const start = Date.now();
      await new Promise((resolve) => setTimeout(resolve, ms));
      spans.push({ label, start, end: Date.now() });
      return { output: `${name} ${label} done` };
    },
  });
}
