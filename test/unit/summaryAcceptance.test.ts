/** Which answers to a summarization request are taken as the summary: any shape, but not empty, a refusal or too long. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { judgeSummary, looksLikeRefusal, REFUSAL_MAX_CHARS } from '../../src/model/summaryAcceptance';

describe('summary acceptance', () => {
  const refusals = [
    "I'm sorry, but I can't help with that.",
    'I cannot assist with this request.',
    'Sorry, I am unable to summarize this conversation.',
    'As an AI, I won’t do that.',
    "Unfortunately I can't provide a summary here.",
  ];
  for (const text of refusals) test(`a refusal: ${text}`, () => assert.equal(looksLikeRefusal(text), true));

  const summaries = [
    // Short but a real summary, mentioning an error message with "cannot".
    'Fixed the parser; the build still fails with "cannot find module ./lexer". Next: restore src/lexer.ts.',
    '## Goal\nPort the parser.\n## Progress\n- Last step: 9',
    `Working on the port. ${'The tests pass and I cannot see a regression. '.repeat(12)}`,
  ];
  for (const text of summaries) test(`not a refusal: ${text.slice(0, 50)}…`, () => assert.equal(looksLikeRefusal(text), false));

  test('a long answer is never a refusal, whatever it says', () => {
    const long = `I'm sorry, but I can't help with that. ${'x'.repeat(REFUSAL_MAX_CHARS)}`;
    assert.equal(looksLikeRefusal(long), false);
  });

  test('any shape shorter than what it replaces is accepted, trimmed; empty, refusal, not shorter are not', () => {
    assert.deepEqual(judgeSummary('  Free prose about the work.\n', 10, 500), { accepted: true, text: 'Free prose about the work.' });
    const reason = (text: string, tokens: number, replaced: number) => {
      const verdict = judgeSummary(text, tokens, replaced);
      return verdict.accepted ? 'accepted' : verdict.reason;
    };
    assert.equal(reason(' \n ', 4, 500), 'empty');
    assert.equal(reason("I'm sorry, but I can't help with that.", 14, 500), 'refusal');
    assert.equal(reason('A summary as long as its input.', 500, 500), 'not_shorter');
  });

  test("a refusal's message says so without the model's words, which stay out of workflow history", () => {
    const answer = "I'm sorry, but I can't help with summarizing the secret-bearing transcript.";
    const verdict = judgeSummary(answer, 20, 500);
    assert.ok(!verdict.accepted && verdict.reason === 'refusal');
    assert.equal(verdict.message, `the model refused to summarize (a ${answer.length}-character refusal)`);
    assert.ok(!verdict.message.includes('secret-bearing'));
  });
});
