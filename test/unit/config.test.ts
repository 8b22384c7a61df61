/** Settings from the environment: the embedded defaults, and errors that name the bad variable. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readConfig, usesSimulator } from '../../src/config/config';
import { ConfigError } from '../../src/config/configError';

describe('readConfig', () => {
  it('falls back to the embedded defaults: local dev server, simulator, 600 s model requests', () => {
    const config = readConfig({});
    assert.equal(config.connection.address, '127.0.0.1:7233');
    assert.equal(config.connection.namespace, 'default');
    assert.ok(usesSimulator(config));
    assert.equal(config.defaultModel, 'agentd-sim');
    assert.equal(config.modelTimeoutMs, 600_000);
  });

  it('reads AGENTD_MODEL_TIMEOUT_SECONDS and names it when it is not a whole number of seconds', () => {
    assert.equal(readConfig({ AGENTD_MODEL_TIMEOUT_SECONDS: '45' }).modelTimeoutMs, 45_000);
    for (const bad of ['0', '-3', '1.5', 'soon']) {
      assert.throws(
        () => readConfig({ AGENTD_MODEL_TIMEOUT_SECONDS: bad }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith('AGENTD_MODEL_TIMEOUT_SECONDS:'),
        bad,
      );
    }
  });
});
