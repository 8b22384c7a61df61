/**
 * withHeartbeat: work that ends before FIRST_HEARTBEAT_AFTER_MS sends no heartbeat at all; longer
 * work heartbeats from then on, every HEARTBEAT_EVERY_MS, and stops when it ends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import { FIRST_HEARTBEAT_AFTER_MS, withHeartbeat } from '../../src/activities/heartbeat';
import { HEARTBEAT_EVERY_MS } from '../../src/activities/types';

async function heartbeatsOf(workMs: number): Promise<number> {
  const env = new MockActivityEnvironment();
  let beats = 0;
  env.on('heartbeat', () => (beats += 1));
  await env.run(() => withHeartbeat(() => sleep(workMs)));
  // A beat still scheduled after the work ended would land here.
  await sleep(HEARTBEAT_EVERY_MS + 100);
  return beats;
}

describe('withHeartbeat', () => {
  it('sends nothing for work shorter than the first heartbeat, then one every interval until the work ends', async () => {
    const [short, long] = await Promise.all([
      heartbeatsOf(FIRST_HEARTBEAT_AFTER_MS - 500),
      heartbeatsOf(FIRST_HEARTBEAT_AFTER_MS + HEARTBEAT_EVERY_MS + 500),
    ]);
    assert.equal(short, 0);
    assert.equal(long, 2);
  });
});
