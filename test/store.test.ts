/** The SQLite transcript store: idempotent puts under workflow-allocated seqs, token counts on write. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { countMessageTokens } from '../src/model/tokens';
import { SqliteTranscriptStore } from '../src/store/sqliteStore';
import { TranscriptStoreError } from '../src/store/transcriptStore';

describe('SqliteTranscriptStore', () => {
  let dir: string;
  let store: SqliteTranscriptStore;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-store-'));
    store = new SqliteTranscriptStore(join(dir, 'nested', 'transcripts.db'));
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the stored row instead of rewriting it', async () => {
    const first = await store.put('s1', 0, { role: 'user', content: 'original' }, { origin: 'first' });
    const again = await store.put('s1', 0, { role: 'user', content: 'a retry with other text' }, { origin: 'retry' });
    assert.deepEqual(again, first);
    assert.equal((await store.get('s1', 0))?.message.content, 'original');
  });

  it('counts tokens when storing, tool-call arguments included', async () => {
    const args = JSON.stringify({ path: 'big.txt', content: 'lorem ipsum '.repeat(2000) });
    const message = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'write_file', arguments: args } }],
    };
    const stored = await store.put('s1', 1, message);
    assert.equal(stored.tokens, countMessageTokens(message));
    assert.ok(stored.tokens > 2000, `an 24 KB write weighs its arguments (${stored.tokens} tokens)`);
    assert.equal(stored.chars, args.length);
  });

  it('reads seqs in the order asked and names a missing one', async () => {
    await store.put('s2', 0, { role: 'system', content: 'sys' });
    await store.put('s2', 1, { role: 'user', content: 'task' });
    const rows = await store.getMany('s2', [1, 0]);
    assert.deepEqual(rows.map((row) => row.seq), [1, 0]);
    await assert.rejects(store.getMany('s2', [0, 7]), (error: unknown) => {
      assert.ok(error instanceof TranscriptStoreError);
      assert.equal(error.code, 'missing_seq');
      assert.match(error.message, /seq 7/);
      return true;
    });
  });

  it('keeps sessions apart and lists them', async () => {
    assert.deepEqual((await store.list('s2')).map((row) => row.message.content), ['sys', 'task']);
    assert.equal((await store.list('s2', { afterSeq: 0 })).length, 1);
    const sessions = await store.sessions();
    assert.deepEqual(sessions.map((session) => session.sessionId).sort(), ['s1', 's2']);
  });

  it('records a started world-changing call once, so a retry can tell it was started', async () => {
    assert.equal(await store.markStarted('s3', 4), true);
    assert.equal(await store.markStarted('s3', 4), false);
    assert.equal(await store.markStarted('s3', 5), true);
  });

  it('is shared by a second connection to the same file (worker and CLI)', async () => {
    const reader = new SqliteTranscriptStore(store.file);
    try {
      assert.equal((await reader.get('s2', 1))?.message.content, 'task');
    } finally {
      await reader.close();
    }
  });
});
