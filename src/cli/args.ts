/** Command-line parsing shared by the commands: node's parseArgs, with errors that name the flag. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readConfig, type AgentdConfig } from '../config';
import { UsageError } from './command';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every command that talks to Temporal accepts. */
export const CONNECTION_OPTIONS = {
  address: { type: 'string' },
  namespace: { type: 'string' },
} as const satisfies Options;

export const CONNECTION_HELP = `  --address HOST:PORT  Temporal frontend (env TEMPORAL_ADDRESS, default 127.0.0.1:7233)
  --namespace NAME     Temporal namespace (env TEMPORAL_NAMESPACE, default "default")`;

export function parse<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The environment's settings with --address/--namespace applied. */
export function configWith(values: { address?: string | boolean; namespace?: string | boolean }): AgentdConfig {
  const config = readConfig();
  if (typeof values.address === 'string') config.temporalAddress = values.address;
  if (typeof values.namespace === 'string') config.namespace = values.namespace;
  return config;
}

export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new UsageError(`--${flag}: expected a positive whole number, got '${value}'`);
  return parsed;
}

export function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new UsageError(`--${flag}: expected a positive number, got '${value}'`);
  return parsed;
}

/** 0 or more, for settings where 0 means "off". */
export function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`--${flag}: expected a whole number (0 or more), got '${value}'`);
  return parsed;
}

export function requirePositional(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined || value === '') throw new UsageError(`missing <${name}>`);
  return value;
}
