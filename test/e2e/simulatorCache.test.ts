/** The simulator's prompt cache, driven over HTTP through the real openai client: OpenAI's prefix rule. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type OpenAI from 'openai';
import type { ChatMessage, ToolSpec } from '../../src/model/messages';
import { SUMMARIZE_INSTRUCTION_HEAD } from '../../src/model/summaryFormat';
import { countMessageTokens, countToolTokens } from '../../src/model/tokens';
import type { ObservedRequest } from '../../src/simulator/observer';
import { MODEL, SYSTEM, withSim } from '../helpers/withSimulator';

const TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: { name: 'list_files', description: 'List files under a path.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  },
];

/** The cached tokens the simulator reports for one request. */
async function cachedOf(client: OpenAI, messages: readonly ChatMessage[]): Promise<number> {
  const completion = await client.chat.completions.create({ model: MODEL, messages: [...messages], tools: TOOLS });
  const cached = completion.usage?.prompt_tokens_details?.cached_tokens;
  assert.equal(typeof cached, 'number', 'usage.prompt_tokens_details.cached_tokens is reported');
  return cached ?? -1;
}

/** A user message of about `words` tokens, its text told apart by `tag`. */
function filler(tag: string, words: number): ChatMessage {
  return { role: 'user', content: `${tag}: ${Array.from({ length: words }, (_, index) => `w${index % 50}`).join(' ')}` };
}

/** Tokens of the tools and these messages: a prefix as the cache counts it, before the 128 rounding. */
function prefixTokens(messages: readonly ChatMessage[]): number {
  return countToolTokens(TOOLS) + messages.reduce((sum, message) => sum + countMessageTokens(message), 0);
}

/** Independent of the simulator's own `cachedTokensOf`, so a wrong rule there fails here. */
function roundedDown(tokens: number): number {
  return Math.floor(tokens / 128) * 128;
}

/** OpenAI's rule: nothing under 1,024 tokens, else rounded down to 128. */
function cachedTokensOf(prefix: number): number {
  return prefix < 1024 ? 0 : roundedDown(prefix);
}

describe('simulator prompt cache', () => {
  it('caches nothing of a first request, nor of a shared prefix under 1,024 tokens', async () => {
    await withSim({}, async (_sim, client) => {
      const start = [SYSTEM, { role: 'user' as const, content: 'small task' }, filler('a', 300)];
      assert.ok(prefixTokens(start) < 1024, `${prefixTokens(start)} tokens`);
      assert.equal(await cachedOf(client, start), 0, 'nothing sent before');
      assert.equal(await cachedOf(client, [...start, filler('b', 2000)]), 0, 'the shared prefix is under 1,024 tokens');
      // The second request's prefix is now long enough: a third that extends it is served from it.
      const third = [...start, filler('b', 2000), filler('c', 10)];
      assert.equal(await cachedOf(client, third), roundedDown(prefixTokens(third.slice(0, -1))));
    });
  });

  it('reports the earlier prefix of a request that extends it, rounded down to a multiple of 128', async () => {
    await withSim({}, async (_sim, client) => {
      const first = [SYSTEM, { role: 'user' as const, content: 'extend task' }, filler('a', 1500)];
      const shared = prefixTokens(first);
      assert.notEqual(shared % 128, 0, 'a prefix that needs rounding');
      await cachedOf(client, first);
      const cached = await cachedOf(client, [...first, filler('b', 40)]);
      assert.equal(cached, roundedDown(shared));
      assert.ok(cached >= 1024 && cached % 128 === 0 && cached < shared, `${cached} of ${shared}`);
    });
  });

  it('counts only up to a rewritten middle message', async () => {
    await withSim({}, async (_sim, client) => {
      const head = [SYSTEM, { role: 'user' as const, content: 'rewrite task' }, filler('a', 1300)];
      await cachedOf(client, [...head, filler('b', 1300), filler('c', 1300)]);
      const cached = await cachedOf(client, [...head, filler('b rewritten', 1300), filler('c', 1300)]);
      assert.equal(cached, roundedDown(prefixTokens(head)), 'the messages after the rewritten one are not cached, though identical');
    });
  });

  it('still serves a prefix sent two requests ago, not only the previous one', async () => {
    await withSim({}, async (_sim, client) => {
      const head = [SYSTEM, { role: 'user' as const, content: 'older prefix task' }];
      const long = [...head, filler('a', 1500), filler('b', 1500)];
      await cachedOf(client, long);
      assert.equal(await cachedOf(client, [...head, filler('other', 200)]), 0, 'the request in between shares only a short prefix');
      assert.equal(await cachedOf(client, [...long, filler('c', 20)]), roundedDown(prefixTokens(long)));
    });
  });

  it('keeps conversations apart: the same messages under another task are not cached', async () => {
    await withSim({}, async (_sim, client) => {
      const body = [filler('a', 1500), filler('b', 100)];
      await cachedOf(client, [SYSTEM, { role: 'user', content: 'task one' }, ...body]);
      assert.equal(await cachedOf(client, [SYSTEM, { role: 'user', content: 'task two' }, ...body]), 0);
    });
  });

  it('shows cached tokens per request to the observer and splits them summary/agent in the stats', async () => {
    const seen: ObservedRequest[] = [];
    await withSim({ observe: (request) => seen.push(request) }, async (sim, client) => {
      const step = [SYSTEM, { role: 'user' as const, content: 'summary cache task' }, filler('a', 1500), filler('b', 700)];
      await cachedOf(client, step.slice(0, -1));
      const agentCached = await cachedOf(client, step);
      // A summary request is the previous request word for word plus the instruction.
      const summaryCached = await cachedOf(client, [...step, { role: 'user', content: SUMMARIZE_INSTRUCTION_HEAD }]);
      assert.equal(summaryCached, roundedDown(prefixTokens(step)));

      assert.deepEqual(
        seen.map(({ cachedTokens, summarizing }) => ({ cachedTokens, summarizing })),
        [
          { cachedTokens: 0, summarizing: false },
          { cachedTokens: agentCached, summarizing: false },
          { cachedTokens: summaryCached, summarizing: true },
        ],
      );
      const stats = sim.stats();
      assert.equal(stats.totalCachedTokens, agentCached + summaryCached);
      assert.equal(stats.summaryCachedTokens, summaryCached);
      assert.deepEqual(stats.recent.map((sample) => sample.summarizing), [false, false, true]);
      assert.equal(stats.summaryPromptTokens, seen[2]?.promptTokens);
      assert.equal(stats.totalPromptTokens - stats.summaryPromptTokens, (seen[0]?.promptTokens ?? 0) + (seen[1]?.promptTokens ?? 0));
      const summaryShare = stats.summaryCachedTokens / stats.summaryPromptTokens;
      assert.ok(summaryShare > 0.9, `a summary request is nearly all cached: ${summaryShare}`);
    });
  });

  it('serves a 120-step session growing past 128K tokens, each request cached up to the one before', async () => {
    await withSim({ contextWindow: 400_000 }, async (_sim, client) => {
      const messages: ChatMessage[] = [SYSTEM, { role: 'user', content: 'long session task' }];
      const started = performance.now();
      for (let step = 0; step < 120; step += 1) {
        messages.push(filler(`step ${step}`, 540));
        assert.equal(await cachedOf(client, messages), cachedTokensOf(prefixTokens(messages.slice(0, -1))), `step ${step}`);
      }
      assert.ok(prefixTokens(messages) > 128_000, `${prefixTokens(messages)} tokens at the end`);
      // Timing is printed, not asserted: the machine is shared, and the figure is the client's and the server's together.
      console.log(`120 requests growing to ${prefixTokens(messages)} tokens: ${Math.round(performance.now() - started)} ms`);
    });
  });
});
