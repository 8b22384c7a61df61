/**
 * Whether a namespace has the session search attributes registered, and registering them. A
 * cluster without them rejects a session's start (and its workflow's upserts) with a bare
 * "not defined"; these helpers let `agentd start`, the worker and `agentd search-attributes` say
 * which are missing and how to add them.
 */
import type { OperatorService } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { CLI_TYPE_NAMES, SESSION_SEARCH_ATTRIBUTES } from '../session/searchAttributes';

type SessionAttribute = (typeof SESSION_SEARCH_ATTRIBUTES)[number];

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
const PROTO_TYPES: Readonly<Record<SessionAttribute['type'], temporal.api.enums.v1.IndexedValueType>> = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
};

/** The session attributes `namespace` lacks (or has under another type), in contract order. */
export async function missingSearchAttributes(operator: OperatorService, namespace: string): Promise<SessionAttribute[]> {
  const { customAttributes } = await operator.listSearchAttributes({ namespace });
  return SESSION_SEARCH_ATTRIBUTES.filter((key) => customAttributes?.[key.name] !== PROTO_TYPES[key.type]);
}

/** Registers the attributes `namespace` lacks; returns the ones it added. */
export async function registerSearchAttributes(operator: OperatorService, namespace: string): Promise<SessionAttribute[]> {
  const missing = await missingSearchAttributes(operator, namespace);
  if (missing.length === 0) return [];
  await operator.addSearchAttributes({ namespace, searchAttributes: indexedValueTypes(missing) });
  return missing;
}

/** `keys` as `addSearchAttributes` takes them: name to indexed value type. */
export function indexedValueTypes(keys: readonly SessionAttribute[] = SESSION_SEARCH_ATTRIBUTES): Record<string, temporal.api.enums.v1.IndexedValueType> {
  return Object.fromEntries(keys.map((key) => [key.name, PROTO_TYPES[key.type]]));
}

/** The stock-CLI commands that register `keys` (what an operator without agentd's access runs). */
export function registerCommands(namespace: string, keys: readonly SessionAttribute[] = SESSION_SEARCH_ATTRIBUTES): string[] {
  return keys.map((key) => `temporal operator search-attribute create --namespace ${namespace} --name ${key.name} --type ${CLI_TYPE_NAMES[key.type]}`);
}

/** The namespace lacks session search attributes: nothing was started. */
export class MissingSearchAttributesError extends Error {
  constructor(
    readonly namespace: string,
    readonly missing: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(
      `namespace ${namespace} lacks the agentd search attributes ${missing.join(', ')}; ` +
        `register them with \`agentd search-attributes --register\` (or print the \`temporal operator search-attribute create\` commands with \`agentd search-attributes\`)`,
      options,
    );
    this.name = 'MissingSearchAttributesError';
  }
}
