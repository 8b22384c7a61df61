/**
 * The parts agentd runs without but does more with — bubblewrap, a PostgreSQL client, a real model
 * endpoint — said in one line at `agentd setup` and at worker start, with how to add what is missing.
 * Looks at PATH and the config only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { usesSimulator, type AgentdConfig } from '../config/config';
import { findOnPath } from '../devServer/findExecutable';
import { SandboxKind, type CommandSandbox } from '../tools/sandbox';

export interface OptionalPart {
  readonly name: string;
  readonly present: boolean;
  /** What it gives when present; how to add it when missing. */
  readonly note: string;
}

/** Where Debian's postgresql packages put psql when it is not linked onto PATH. */
const DEBIAN_POSTGRES_BINS = '/usr/lib/postgresql';

export function optionalParts(config: AgentdConfig, sandbox: CommandSandbox, env: NodeJS.ProcessEnv = process.env): OptionalPart[] {
  return [bubblewrapPart(sandbox), postgresPart(config, env), endpointPart(config)];
}

/** `optional parts: bubblewrap present (…) · PostgreSQL client missing (…) · model endpoint …`. */
export function describeOptionalParts(parts: readonly OptionalPart[]): string {
  return `optional parts: ${parts.map((part) => `${part.name} ${part.present ? 'present' : 'missing'} (${part.note})`).join(' · ')}`;
}

function bubblewrapPart(sandbox: CommandSandbox): OptionalPart {
  switch (sandbox.kind) {
    case SandboxKind.bubblewrap:
      return { name: 'bubblewrap', present: true, note: 'run_command is sandboxed' };
    case SandboxKind.unsandboxed:
      return { name: 'bubblewrap', present: false, note: 'not used: AGENTD_UNSANDBOXED_COMMANDS=1 runs commands unsandboxed' };
    case SandboxKind.refused:
      return {
        name: 'bubblewrap',
        present: false,
        note: 'run_command is refused until it is there: apt-get install bubblewrap, or set AGENTD_UNSANDBOXED_COMMANDS=1',
      };
  }
}

function postgresPart(config: AgentdConfig, env: NodeJS.ProcessEnv): OptionalPart {
  const psql = findOnPath('psql', env) ?? debianPsql();
  const store = config.store.kind === 'postgres' ? 'the store is on PostgreSQL' : 'the store is SQLite; AGENTD_STORE=postgres://… for several hosts';
  if (psql !== undefined) return { name: 'PostgreSQL client', present: true, note: `${psql}; ${store}` };
  return { name: 'PostgreSQL client', present: false, note: `apt-get install postgresql-client (postgresql for the tests); ${store}` };
}

function endpointPart(config: AgentdConfig): OptionalPart {
  if (!usesSimulator(config)) return { name: 'model endpoint', present: true, note: config.modelBaseURL ?? "OpenAI's default" };
  return { name: 'model endpoint', present: false, note: 'the built-in simulator answers; set OPENAI_BASE_URL and OPENAI_API_KEY for a real model' };
}

function debianPsql(): string | undefined {
  try {
    const versions = fs.readdirSync(DEBIAN_POSTGRES_BINS).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const candidate = path.join(DEBIAN_POSTGRES_BINS, version, 'bin', 'psql');
      if (fs.existsSync(candidate)) return candidate;
    }
  } catch {
    // no Debian PostgreSQL packages
  }
  return undefined;
}
