/** `agentd transcript <id>`: the session's messages as stored (the claim-check store, not Temporal). */
import { readConfig } from '../../config/config';
import type { ChatMessage } from '../../model/messages';
import { openStore } from '../../store/openStore';
import { ExitCode, type Command } from '../command';
import { parse, requirePositional } from '../args';
import { printable } from '../printable';

const PREVIEW_CHARS = 300;

export const transcriptCommand: Command = {
  name: 'transcript',
  summary: "print a session's stored messages",
  help: `usage: agentd transcript <id> [--full] [--json]

Reads the transcript store (env AGENTD_STORE: a SQLite file, default .agentd/transcripts.db, or a
postgres:// URL): every message of
the session in seq order. Exit code 3 when the store has no message of that session.

  --full   whole message bodies (default: the first ${PREVIEW_CHARS} characters)
  --json   one JSON object per line: {seq, role, tokens, message}`,
  async run(argv) {
    const { values, positionals } = parse(argv, { full: { type: 'boolean' }, json: { type: 'boolean' } });
    const sessionId = requirePositional(positionals, 0, 'id');
    const store = await openStore(readConfig().store);
    try {
      const rows = await store.list(sessionId);
      if (rows.length === 0) {
        console.error(printable(`no stored messages for session ${sessionId}`));
        return ExitCode.notFound;
      }
      for (const row of rows) {
        if (values.json) {
          console.log(JSON.stringify({ seq: row.seq, role: row.message.role, tokens: row.tokens, message: row.message }));
        } else {
          const text = describe(row.message);
          const shown = values.full || text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS)}… (${text.length} chars)`;
          console.log(printable(`#${row.seq} ${row.message.role} (${row.tokens} tokens)\n${shown}\n`));
        }
      }
      return ExitCode.ok;
    } finally {
      await store.close();
    }
  },
};

function describe(message: ChatMessage): string {
  if (message.role !== 'assistant' || !message.tool_calls?.length) return message.content ?? '';
  const calls = message.tool_calls.map((call) => `→ ${call.function.name}(${call.function.arguments})`);
  return [message.content ?? '', ...calls].filter(Boolean).join('\n');
}
