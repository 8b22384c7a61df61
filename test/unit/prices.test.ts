/** Where a session's price comes from: override, gpt-tokenizer's model table, the simulator's nominal price. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as openaiModels from 'gpt-tokenizer/models.gen';
import { resolveSessionInput } from '../../src/session/resolve';
import { readConfig } from '../../src/config/config';
import { knownContextWindow } from '../../src/model/knownModels';
import { MODEL_TABLE } from '../../src/model/modelTable.gen';
import { knownPrice, SIMULATOR_PRICE, tokenizerPrice } from '../../src/model/prices';
import { resolveRawSessionInput } from '../../src/session/resolve';

/** A model gpt-tokenizer has main-API prices for, found in its table rather than named here. */
function pricedModel(): { name: string; input: number; output: number } {
  for (const [name, spec] of Object.entries(openaiModels as Record<string, { price_data?: { main?: { input?: number; output?: number } } }>)) {
    const main = spec?.price_data?.main;
    if (typeof main?.input === 'number' && typeof main.output === 'number') return { name, input: main.input, output: main.output };
  }
  throw new Error('gpt-tokenizer lists no priced model');
}

describe('the model table', () => {
  test('is gpt-tokenizer\'s windows and prices, entry for entry (regenerate: node scripts/gen-model-table.mjs)', () => {
    const specs = openaiModels as Record<string, { context_window?: number } | undefined>;
    let windows = 0;
    for (const [name, spec] of Object.entries(specs)) {
      assert.equal(knownContextWindow(name), spec?.context_window, name);
      if (spec?.context_window !== undefined) windows += 1;
    }
    assert.ok(windows > 50, `${windows} models with a window`);
    for (const name of Object.keys(MODEL_TABLE)) assert.ok(name in specs, `${name} is not in gpt-tokenizer's table`);
    const model = pricedModel();
    assert.deepEqual(tokenizerPrice(model.name), { inputPerMillion: model.input, outputPerMillion: model.output });
    assert.equal(knownContextWindow('toString'), undefined, 'only own entries count');
  });

  test('the workflow\'s resolution of raw input fills a known model\'s window and price, and names an unknown one', () => {
    const input = resolveRawSessionInput({ task: 't', model: 'agentd-sim' });
    assert.equal(input.contextWindow, 128_000);
    assert.deepEqual(input.prices, SIMULATOR_PRICE);
    assert.deepEqual(input, resolveSessionInput({ task: 't', model: 'agentd-sim' }), 'the same as the client resolves');
    assert.throws(() => resolveRawSessionInput({ task: 't', model: 'my-llm' }), /contextWindow: model 'my-llm' has no known context window/);
    assert.throws(() => resolveRawSessionInput('not an object'), /invalid session input/);
  });
});

describe('prices', () => {
  test('gpt-tokenizer prices a model it knows; an unknown model has none', () => {
    const model = pricedModel();
    assert.deepEqual(tokenizerPrice(model.name), { inputPerMillion: model.input, outputPerMillion: model.output });
    assert.equal(knownPrice('my-local-llm'), undefined);
  });
  test('a model the table gives a cached-input rate is priced with it, whichever name the table files it under', () => {
    type MainPrice = { input?: number; output?: number; cached_input?: number; cached_output?: number };
    const specs = openaiModels as Record<string, { price_data?: { main?: MainPrice } } | undefined>;
    let cachedRates = 0;
    for (const [name, spec] of Object.entries(specs)) {
      const main = spec?.price_data?.main;
      if (typeof main?.input !== 'number' || typeof main.output !== 'number') continue;
      const cached = main.cached_input ?? main.cached_output;
      assert.equal(tokenizerPrice(name)?.cachedInputPerMillion, cached, name);
      if (cached !== undefined) cachedRates += 1;
    }
    assert.ok(cachedRates > 0, 'gpt-tokenizer lists some cached rates');
    // OpenAI's published o1 rates: $15 in, $7.50 cached in, $60 out per million.
    assert.deepEqual(tokenizerPrice('o1'), { inputPerMillion: 15, outputPerMillion: 60, cachedInputPerMillion: 7.5 });
  });
  test('an override wins; the simulator has its nominal price', () => {
    const model = pricedModel();
    const override = { inputPerMillion: 0.1, outputPerMillion: 0.2 };
    assert.deepEqual(knownPrice(model.name, { [model.name]: override }), override);
    assert.deepEqual(knownPrice('agentd-sim'), SIMULATOR_PRICE);
  });
  test('AGENTD_PRICES is read and a bad one is named', () => {
    const config = readConfig({ AGENTD_PRICES: '{"qwen":{"inputPerMillion":0.2,"outputPerMillion":0.6}}' });
    assert.deepEqual(config.prices, { qwen: { inputPerMillion: 0.2, outputPerMillion: 0.6 } });
    const cached = readConfig({ AGENTD_PRICES: '{"qwen":{"inputPerMillion":0.2,"outputPerMillion":0.6,"cachedInputPerMillion":0.05}}' });
    assert.deepEqual(cached.prices, { qwen: { inputPerMillion: 0.2, outputPerMillion: 0.6, cachedInputPerMillion: 0.05 } });
    assert.throws(() => readConfig({ AGENTD_PRICES: '{"qwen":{"inputPerMillion":0.2,"outputPerMillion":0.6,"cachedInputPerMilion":0.05}}' }), /AGENTD_PRICES/);
    assert.throws(() => readConfig({ AGENTD_PRICES: '{"qwen":{"inputPerMillion":-1,"outputPerMillion":0.6}}' }), /AGENTD_PRICES: qwen\.inputPerMillion/);
    assert.throws(() => readConfig({ AGENTD_PRICES: 'nope' }), /AGENTD_PRICES: not JSON/);
  });
  test('the client fills the price at start; maxCostUsd without one is refused naming prices', () => {
    assert.deepEqual(resolveSessionInput({ task: 't', model: 'qwen', contextWindow: 32_768 }, { qwen: { inputPerMillion: 1, outputPerMillion: 2 } }).prices, {
      inputPerMillion: 1,
      outputPerMillion: 2,
    });
    assert.throws(() => resolveSessionInput({ task: 't', model: 'qwen', contextWindow: 32_768, maxCostUsd: 1 }), /prices: maxCostUsd needs a price for model 'qwen'/);
  });
});
