/** Opens the transcript store a setting names: PostgreSQL for a `postgres://` URL, else a SQLite file. */
import { PostgresTranscriptStore } from './postgresStore';
import { SqliteTranscriptStore } from './sqliteStore';
import type { StoreSetting } from './storeSetting';
import type { TranscriptStore } from './transcriptStore';

export async function openStore(setting: StoreSetting): Promise<TranscriptStore> {
  switch (setting.kind) {
    case 'sqlite':
      return new SqliteTranscriptStore(setting.file);
    case 'postgres':
      return PostgresTranscriptStore.open({ url: setting.url });
  }
}
