/**
 * The session memory block (DESIGN §5 "Session memory"): what it quotes and lists from
 * a real SQLite transcript, that it stays within its budget, and that the summarize activity stores
 * it beside the summary (and again on a retry, without a model call).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { countTextTokens } from '../../src/model/textTokens';
import { MockActivityEnvironment } from '@temporalio/testing';
import { buildSessionMemory } from '../../src/model/sessionMemory';
import type { SummarizeResult } from '../../src/activities/types';
import { isMemoryMessage } from '../../src/model/memoryFormat';
import type { ChatMessage } from '../../src/model/messages';
import { startSimulator } from '../../src/simulator/server';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import { activitiesOn } from '../helpers/activitiesOn';

describe('session memory', () => {
  let dir: string;
  let store: SqliteTranscriptStore;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-memory-'));
    store = new SqliteTranscriptStore(join(dir, 'transcripts.db'));
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * A transcript written to the store as a session would: the system prompt at seq 0, the task at
   * seq 1, then each message at the next seq. A call is the agent's message (`said`, or none)
   * declaring it and the tool's result.
   */
  async function transcript(sessionId: string, opening = { system: 'sys', task: 'task' }) {
    let seq = 0;
    const put = (message: ChatMessage, meta: Record<string, unknown> = {}) => store.put(sessionId, seq++, message, meta);
    const call = async (name: string, args: Record<string, unknown>, output: string, said: string | null = null) => {
      const id = `call_${seq}`;
      await put({ role: 'assistant', content: said, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
      await put({ role: 'tool', tool_call_id: id, content: output }, { toolName: name });
    };
    await put({ role: 'system', content: opening.system });
    await put({ role: 'user', content: opening.task });
    return {
      put,
      call,
      run: (command: string, output: string, said: string | null = null) => call('run_command', { command }, output, said),
      /** The seq of the newest message. */
      last: () => seq - 1,
      /** The memory when everything after the task left the context, summarized, except the newest call and result. */
      memory: async (budgetTokens: number) =>
        buildSessionMemory({ rows: await store.list(sessionId), taskSeq: 1, summarized: [[2, seq - 3]], kept: [[0, 1], [seq - 2, seq - 1]], budgetTokens }),
    };
  }

  /** A session with two user messages after the task, a write, a listing, a read and a failing test run. */
  async function session(sessionId: string): Promise<number> {
    const { put, call, last } = await transcript(sessionId, { system: 'You are a careful agent.', task: 'Port the parser.' });
    const calling = (name: string, args: Record<string, unknown>, output: string) => call(name, args, output, `calling ${name}`);
    await put({ role: 'user', content: 'CONSTRAINT: never edit vendor/. The release is code-named Osprey.' });
    await calling('write_file', { path: 'src/parser.ts', content: 'export const x = 1;\n' }, 'wrote 20 bytes to src/parser.ts');
    await calling('list_files', { path: '.' }, 'legacy_grammar.pegjs\nsrc/\nvendor/');
    await calling('read_file', { path: 'README.md' }, '# readme');
    await calling('run_command', { command: 'npm test' }, 'ok 1 - lexer\nnot ok 2 - parser rejects empty input\n  AssertionError: expected throw\nexit code: 1');
    await put({ role: 'user', content: 'Now also update the changelog, please.' });
    await calling('run_command', { command: 'npm run lint' }, 'all clean\nexit code: 0');
    // A later listing no longer shows the deleted file; the memory still names it.
    await calling('list_files', { path: '.' }, 'src/\nvendor/');
    return last();
  }

  it('quotes the user messages after the task and lists the artifact trail and how to get back what left', async () => {
    const last = await session('mem-1');
    const text = buildSessionMemory({ rows: await store.list('mem-1'), taskSeq: 1, summarized: [[2, 12]], kept: [[0, 1], [13, last]], budgetTokens: 2048 });
    assert.ok(isMemoryMessage(text), 'starts with the memory marker');
    assert.ok(!text.includes('Port the parser.'), 'the task is pinned, not quoted');
    assert.match(text, /CONSTRAINT: never edit vendor\/\. The release is code-named Osprey\./, 'a user message verbatim');
    assert.ok(text.indexOf('update the changelog') < text.indexOf('code-named Osprey'), 'newest first');
    assert.match(text, /src\/parser\.ts \(write_file at seq 3, 20 bytes\)/, 'the file written, its seq and size');
    assert.match(text, /listed \. \(newest seq 15\): src\/, vendor\/, legacy_grammar\.pegjs/, 'every name the listings showed, also a file deleted since');
    assert.match(text, /read_file README\.md \(seq 8\)/, 'the file read');
    assert.match(text, /`npm test` → exit code 1: AssertionError: expected throw/, 'a command, its exit status and last output line');
    assert.match(text, /`npm run lint` → exit code 0: all clean/);
    const said = text.slice(text.indexOf('## What tool outputs said'), text.indexOf('## Files written'));
    assert.match(said, /not ok 2 - parser rejects empty input/, 'the failing check of a result that left the context');
    assert.match(said, /AssertionError: expected throw/, 'and its error line');
    assert.ok(!/all clean/.test(said), 'a passing result that told nothing is not listed');
    assert.match(text, /Summarized .*seqs 2-12/);
    assert.match(text, /search_transcript/, 'tells the model the search tool exists');
    assert.match(text, /read_output/, 'and how to page an original');
  });

  it('counts runs of a command that differ only in numbers once, so they do not push out an older distinct one', async () => {
    const { run, memory } = await transcript('mem-5');
    await run('echo "parser benchmark: $((1031*7)) ops/s"', 'parser benchmark: 7217 ops/s\nexit code: 0');
    for (let i = 1; i <= 30; i++) await run(`seq -f 'test case %.0f: ok' 1 ${100 + i}`, `test case 1: ok\ntest case ${100 + i}: ok\nexit code: 0`);
    const text = await memory(2048);
    assert.match(text, /parser benchmark: 7217 ops\/s/, 'the older distinct command and its result');
    assert.match(text, /test case 130: ok \(30 runs alike\)/, 'the repeated one, once, by its newest run');
    assert.equal(text.match(/seq -f/g)?.length, 1);
  });

  it('a trail section cut short keeps its newest lines and its oldest one; one long section does not starve the others', async () => {
    const { call, memory } = await transcript('mem-6');
    await call('write_file', { path: 'src/first-module.ts', content: 'x' }, 'wrote 1 bytes');
    await call('list_files', { path: '.' }, 'legacy_grammar.pegjs\nsrc/');
    for (let i = 0; i < 120; i++) await call('write_file', { path: `notes/step-${i}-${'x'.repeat(40)}.md`, content: 'n' }, 'wrote 1 bytes');
    const budget = 700;
    const text = await memory(budget);
    assert.ok(countTextTokens(text) <= budget, `${countTextTokens(text)} tokens over the budget ${budget}`);
    assert.match(text, /notes\/step-119-/, 'the newest file written');
    assert.match(text, /more between \(search_transcript finds them\), and the oldest:\n- src\/first-module\.ts/, 'and the first one');
    assert.match(text, /listed \. \(newest seq \d+\): legacy_grammar\.pegjs/, 'the listing keeps its share');
  });

  it('keeps what left messages stated and what their outputs said, each once, within its budget', async () => {
    const { run, memory } = await transcript('mem-7');
    const noise = Array.from({ length: 150 }, (_, i) => `test case ${i}: ok`).join('\n');
    const cause = 'The root cause is TAB_WIDTH = 4 hard-coded in src/parser/lexer.ts.';
    await run('npm test', `${noise}\nnot ok 2 - parser rejects empty input\n${noise}\nexit code: 1`, "I'll check the lexer first.");
    await run('node bench.js', `${noise}\nparser benchmark: 7217 ops/s\n${noise}\nexit code: 0`, cause);
    // The same failure restated twenty times, and many more outputs that say something.
    for (let i = 0; i < 20; i++) await run(`npm test -- --run ${i}`, `${noise}\nnot ok 2 - parser rejects empty input\nexit code: 1`, cause);
    for (let i = 0; i < 60; i++) await run(`wc -l part${i}.ts`, `lines counted: ${1000 + i}\nexit code: 0`, `Decided to split module ${i} into two files.`);
    const budget = 900;
    const text = await memory(budget);
    assert.ok(countTextTokens(text) <= budget, `${countTextTokens(text)} tokens over the budget ${budget}`);
    const said = text.slice(text.indexOf('## What tool outputs said'), text.indexOf('## Commands'));
    assert.equal(said.match(/not ok 2 - parser rejects empty input/g)?.length, 1, 'a line restated twenty times is one');
    assert.match(said, /lines counted: 1058/, 'the newest value that left (the newest run is still in the context)');
    assert.doesNotMatch(said, /lines counted: 1059/, 'what is still in the context is not repeated');
    assert.equal(said.match(/lines counted/g)?.length, 1, 'the same metric measured again: the newest value holds');
    assert.match(said, /parser benchmark: 7217 ops\/s/, 'an older value of another kind');
    assert.doesNotMatch(said, /test case 149/, 'a failing result whose lines a newer one shows is not listed again by its last line');
    const stated = text.slice(text.indexOf('## Stated'), text.indexOf('## What tool outputs said'));
    assert.equal(stated.match(/TAB_WIDTH = 4/g)?.length, 1, 'a statement made twenty times is one');
    assert.match(stated, /decision: Decided to split module 58/, 'the newest of statements alike');
    assert.equal(stated.match(/Decided to split/g)?.length, 1);
    assert.doesNotMatch(stated, /check the lexer/, 'narration of the next look is not a statement');
  });

  it('confirmations of writes and file contents read do not crowd out what commands printed (bench/facts, issue #25)', async () => {
    const { call, memory } = await transcript('mem-8');
    await call('run_command', { command: 'node bench.js' }, 'warming up\nparser benchmark: 7217 ops/s\ndone\nexit code: 0');
    for (let i = 0; i < 80; i++) {
      const path = `notes/step-${(i * 7919).toString(16)}a-${i}.md`;
      await call('write_file', { path, content: 'n'.repeat(500 + i) }, `wrote ${500 + i} bytes to ${path}`);
      await call('read_file', { path }, `# Notes\nversion 1.${i}.0 took ${i} ms`);
    }
    const text = await memory(700);
    const said = text.slice(text.indexOf('## What tool outputs said'));
    assert.match(said, /parser benchmark: 7217 ops\/s/);
    assert.doesNotMatch(said, /wrote \d+ bytes|took \d+ ms/);
  });

  it('what was stated outranks the artifact trail: a long trail does not push out values and errors that left (bench/cost, issue #25)', async () => {
    const { put, call, run, memory } = await transcript('mem-9');
    const noise = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `test case ${from + i}: ok`).join('\n');
    const logged = (command: string) => `${command} 2>&1 | tee /tmp/agent-logs/${command.split(' ')[1]}-output-of-this-step.log; exit \${PIPESTATUS[0]}`;
    await put({
      role: 'user',
      content:
        'CONSTRAINT: never edit files under vendor/, they are generated. CI reports one failing test in test/parser.test.ts; ' +
        'the code under test is src/parser/tokenize.ts. The CLI users depend on the tokenizer, so its public API stays as it is. ' +
        'Please look into the failure first and tell me what you find before changing any behaviour.',
    });
    await run(logged('npm test -- --reporter=tap'), 'ok 1 - lexer\nnot ok 2 - tokenizer_keeps_trailing_tabs\nAssertionError: expected 2 tabs, got 0\nexit code: 1',
      "I'll keep the old tokenize() signature and add a strict flag instead of changing the default.");
    await run(logged('node bench/parser.js --iterations=100000'), 'parser benchmark: 7217 ops/s\nexit code: 0');
    await run(logged('node --expose-gc scripts/heap.js --cases=460'), `${noise(1, 230)}\npeak heap: 48088 KB\n${noise(231, 460)}\nexit code: 0`);
    await run(logged('npx tsc --noEmit -p tsconfig.json'), `${noise(1, 200)}\nsrc/parser/lexer.ts(88,7): error TS2322: Type 'number' is not assignable to type 'TabStop'.\n${noise(201, 400)}\nexit code: 0`,
      'Found it: the root cause is TAB_WIDTH = 4 hard-coded in src/parser/lexer.ts, so trailing tabs are dropped.');
    // What an agent does for a hundred steps after: notes written, read and listed, checks rerun, a turn at a time.
    for (let i = 0; i < 30; i++) {
      if (i % 3 === 0) await put({ role: 'user', content: `Go on with part ${i / 3 + 2} of the clean-up; keep the notes under notes/ up to date as you go, and rerun the checks after each change.` });
      const path = `notes/step-${(i * 7919).toString(16)}-${i}.md`;
      await call('write_file', { path, content: 'n'.repeat(300) }, `wrote 300 bytes to ${path}`);
      await call('read_file', { path }, 'n'.repeat(300));
      await call('list_files', { path: '.' }, `notes/\nsrc/\nlegacy-${i}.pegjs`);
      await run(`seq -f 'test case %.0f: ok' 1 ${400 + i}`, `${noise(1, 20)}\nexit code: 0`);
    }
    // Under a 32K window's 1,638: the bench's session quoted longer user messages than this one does.
    const budget = 1300;
    const text = await memory(budget);
    assert.ok(countTextTokens(text) <= budget, `${countTextTokens(text)} tokens over the budget ${budget}`);
    const said = text.slice(text.indexOf('## What tool outputs said'), text.indexOf('## Files written'));
    for (const line of ['not ok 2 - tokenizer_keeps_trailing_tabs', 'parser benchmark: 7217 ops/s', 'peak heap: 48088 KB', "not assignable to type 'TabStop'"]) {
      assert.ok(said.includes(line), `the outputs section keeps ${line}`);
    }
    assert.match(text, /## Files written or edited[\s\S]*notes\/step-/, 'the trail still has its place');
  });

  it('names the seqs truncation dropped (neither summarized nor kept)', async () => {
    const last = await session('mem-2');
    const text = buildSessionMemory({ rows: await store.list('mem-2'), taskSeq: 1, summarized: [[6, 12]], kept: [[0, 1], [13, last]], budgetTokens: 2048 });
    assert.match(text, /Dropped without a summary \(emergency truncation\): seqs 2-5\./);
  });


  it("names summarized seqs as one run across the seqs earlier compactions' own rows took", async () => {
    const { put, run, last } = await transcript('mem-left-runs');
    await run('npm test', 'ok 1 - lexer');
    // An earlier compaction's summary and memory rows sit between the originals.
    await put({ role: 'user', content: '[agentd summary of earlier work]' }, { kind: 'summary' });
    await put({ role: 'user', content: '[agentd session memory]' }, { kind: 'memory' });
    await run('npm run lint', 'all clean');
    await run('npm run build', 'built dist/');
    const text = buildSessionMemory({ rows: await store.list('mem-left-runs'), taskSeq: 1, summarized: [[2, 3], [6, 7]], kept: [[0, 1], [8, last()]], budgetTokens: 2048 });
    assert.match(text, /Summarized \(the summary below stands for them\): seqs 2-7\./);
  });
  it('stays within a small budget: older user messages shrink to one line, the trail to what fits', async () => {
    const { put } = await transcript('mem-3');
    for (let seq = 2; seq < 40; seq++) await put({ role: 'user', content: `Message ${seq}: ${'please keep going with the refactoring of module '.repeat(6)}` });
    const budget = 400;
    const text = buildSessionMemory({ rows: await store.list('mem-3'), taskSeq: 1, summarized: [[2, 39]], kept: [[0, 1]], budgetTokens: budget });
    assert.ok(countTextTokens(text) <= budget, `${countTextTokens(text)} tokens over the budget ${budget}`);
    assert.match(text, /Message 39: please keep going/, 'the newest verbatim');
    assert.match(text, /first words only/, 'older ones as one line each');
  });

  it('the summarize activity stores the memory beside the summary, and a retry returns it without a model call', async () => {
    const last = await session('mem-4');
    const simulator = await startSimulator();
    try {
      const activities = activitiesOn(store, dir, simulator.baseURL);
      const input = {
        sessionId: 'mem-4', seq: last + 1, pinned: [[0, 1]] as Array<[number, number]>, region: [[2, last - 2]] as Array<[number, number]>,
        covers: [[2, last - 2]] as Array<[number, number]>, model: 'agentd-sim', budgetTokens: 2000, contextWindow: 32_768,
        memorySeq: last + 2, memoryBudgetTokens: 1500, kept: [[0, 1], [last - 1, last]] as Array<[number, number]>,
      };
      const first: SummarizeResult = await new MockActivityEnvironment().run(activities.summarize, input);
      assert.equal(first.memory?.seq, last + 2);
      const stored = await store.get('mem-4', last + 2);
      assert.equal(stored?.meta.kind, 'memory');
      assert.ok(isMemoryMessage(stored?.message.content));
      assert.match(stored!.message.content!, /code-named Osprey/);
      const requests = simulator.stats().requests;
      const retry: SummarizeResult = await new MockActivityEnvironment().run(activities.summarize, input);
      assert.deepEqual(retry.memory, first.memory);
      assert.equal(simulator.stats().requests, requests, 'the retry called no model');
    } finally {
      await simulator.stop();
    }
  });
});
