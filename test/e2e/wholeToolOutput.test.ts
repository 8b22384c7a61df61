/**
 * A command output past the context's reach (issue 26) is stored whole and enters the context as a
 * view that read_output pages. Before, the output was cut to `toolOutputCapChars` (200,000
 * characters) when it was collected, and what was printed in its middle was lost for good.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requireBubblewrap, skipWithoutBubblewrap } from '../helpers/bubblewrap';
import { toolResults } from '../../harness/transcriptChecks';
import { suiteStack } from '../helpers/suiteStack';

const NEEDLE = 'NEEDLE-IN-THE-MIDDLE';
/** 1.9 MB: 150,000 numbered lines either side of the needle. */
const COMMAND = `seq 1 150000; echo ${NEEDLE}; seq 1 150000`;
const NUMBERS = `${Array.from({ length: 150_000 }, (_, index) => index + 1).join('\n')}\n`;
const PRINTED = `${NUMBERS}${NEEDLE}\n${NUMBERS}exit code: 0`;
const TASK = `Print it all. [sim steps=3]\n[sim call run_command ${JSON.stringify({ command: COMMAND })}]`;

describe('a tool output bigger than the window', skipWithoutBubblewrap(requireBubblewrap()), () => {
  const stack = suiteStack();

  it('is stored whole, middle included, and enters the context as a view', { timeout: 120_000 }, async () => {
    await stack.withWorker({}, async () => {
      const { workflowId } = await stack.sessions.start({ task: TASK, model: 'agentd-sim', contextWindow: 32_768 });
      const result = await stack.sessions.result(workflowId);
      assert.equal(result.outcome, 'finished', result.answer);
      const rows = await stack.store.list(workflowId);
      const [printed] = toolResults(rows).filter((entry) => entry.name === 'run_command');
      assert.ok(printed, 'the command ran');
      assert.ok(printed.output === PRINTED, `stored whole: ${printed.output.length} of ${PRINTED.length} characters`);
      const view = rows.find((row) => row.meta.kind === 'view' && row.message.role === 'tool');
      assert.ok(view, 'the context holds a view of it');
      assert.ok((view.message.content ?? '').length < 100_000, `the view has ${view.message.content?.length} characters`);
      assert.match(view.message.content ?? '', /chars cut from this output \(seq \d+\); read_output with seq=\d+/);
    });
  });
});
