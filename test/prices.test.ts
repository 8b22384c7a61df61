/** Where a session's price comes from: override, gpt-tokenizer's model table, the simulator's nominal price. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as openaiModels from 'gpt-tokenizer/models.gen';
import { resolveSessionInput } from '../src/client/sessionClient';
import { readConfig } from '../src/config';
import { knownPrice, SIMULATOR_PRICE, tokenizerPrice } from '../src/model/prices';

/** A model gpt-tokenizer has main-API prices for, found in its table rather than named here. */
function pricedModel(): { name: string; input: number; output: number } {
  for (const [name, spec] of Object.entries(openaiModels as Record<string, { price_data?: { main?: { input?: number; output?: number } } }>)) {
    const main = spec?.price_data?.main;
    if (typeof main?.input === 'number' && typeof main.output === 'number') return { name, input: main.input, output: main.output };
  }
  throw new Error('gpt-tokenizer lists no priced model');
}

describe('prices', () => {
  test('gpt-tokenizer prices a model it knows; an unknown model has none', () => {
    const model = pricedModel();
    assert.deepEqual(tokenizerPrice(model.name), { inputPerMillion: model.input, outputPerMillion: model.output });
    assert.equal(knownPrice('my-local-llm'), undefined);
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
