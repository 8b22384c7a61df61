/**
 * The stack of one describe block: started before its tests, stopped after them. Tests read it as
 * they would the stack itself; it exists from the `before` hook on.
 */
import { after, before } from 'node:test';
import { startStack, type Stack, type StackOptions } from '../../harness/stack';

export function suiteStack(options: StackOptions = {}): Stack {
  let started: Stack | undefined;
  before(async () => {
    started = await startStack(options);
  });
  after(async () => {
    await started?.stop();
  });
  const running = (): Stack => {
    if (!started) throw new Error('the suite stack was read before its before() hook ran');
    return started;
  };
  // A stand-in whose every property is the running stack's, so a describe block can name it at once.
  return new Proxy({} as Stack, { get: (_target, key) => Reflect.get(running(), key) });
}
