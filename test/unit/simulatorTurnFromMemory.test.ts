/**
 * The scripted agent after compaction summarized the opening message of the turn in progress: it
 * reads the turn from the session memory's verbatim quote, as a real model would, and goes on with
 * the turn's scripted steps instead of taking up the pinned task's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage } from '../../src/model/messages';
import { memoryMessageHeader, newestQuotedUserMessage, quotedUserMessage, USER_MESSAGES_HEADING } from '../../src/model/memoryFormat';
import { summaryMessageHeader } from '../../src/model/summaryFormat';
import { nextReply, type AssistantReply } from '../../src/simulator/script';

const options = { defaultSteps: 6, followUpSteps: 4, outputBytes: { min: 10, max: 20 }, marker: undefined };
const system: ChatMessage = { role: 'system', content: 's' };
const task: ChatMessage = { role: 'user', content: 'Clean up the parser. [sim steps=6]' };
const turnThree = [
  'Go on with part 3.',
  '',
  '[sim call list_files {"path":"src"}]',
  "[sim say I'll keep the old API.]",
  '[sim call read_file {"path":"src/lexer.ts"}]',
  '[sim say Found it: TAB_WIDTH is hard-coded.]',
].join('\n');

function memory(quotes: string): ChatMessage {
  return { role: 'user', content: [memoryMessageHeader(40), '', USER_MESSAGES_HEADING, quotes, '', '## Files written'].join('\n') };
}

const summary: ChatMessage = { role: 'user', content: `${summaryMessageHeader(30, 3, 40)}\nWork so far: parts 1 and 2 done.` };

function toolResult(reply: AssistantReply): ChatMessage {
  return { role: 'tool', tool_call_id: reply.tool_calls?.[0]?.id ?? '', content: 'ok' };
}

describe('the turn in progress after its opening message was summarized', () => {
  it("a memory's verbatim quote reads back exactly, blank lines included", () => {
    const quotes = [quotedUserMessage(41, turnThree), quotedUserMessage(12, 'older')].join('\n');
    assert.equal(newestQuotedUserMessage(memory(quotes).content ?? ''), turnThree);
    assert.equal(newestQuotedUserMessage(memory('- seq 12: older, first words only').content ?? ''), undefined);
  });

  it('goes on with the scripted step the memory quotes, not the pinned task', () => {
    const first = nextReply([system, task, { role: 'user', content: turnThree }], options);
    assert.equal(first.content, "I'll keep the old API.");
    const compacted = [system, task, memory(quotedUserMessage(41, turnThree)), summary, first, toolResult(first)];
    const second = nextReply(compacted, options);
    assert.equal(second.content, 'Found it: TAB_WIDTH is hard-coded.');
    assert.deepEqual(second.tool_calls?.map((call) => call.function.arguments), ['{"path":"src/lexer.ts"}']);
  });

  it('without a verbatim quote it falls back to the pinned task', () => {
    const first = nextReply([system, task, { role: 'user', content: turnThree }], options);
    const compacted = [system, task, memory('- seq 41: Go on with part 3.'), summary, first, toolResult(first)];
    const second = nextReply(compacted, options);
    assert.match(second.content ?? '', /^Step 2 of 6:/);
  });
});
