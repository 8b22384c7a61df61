/**
 * The custom search attributes a session keeps on its workflow, so the fleet can be listed and
 * filtered through Temporal's own visibility index (`agentd list`, the console, `temporal workflow
 * list --query 'AgentdStatus="waiting_for_approval"'`, the Web UI's columns) without asking every
 * running session a query. Names are the public contract: clusters register them under these names.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** SessionStatus while running: running, waiting_for_message, waiting_for_approval. */
export const AgentdStatus = defineSearchAttributeKey('AgentdStatus', SearchAttributeType.KEYWORD);
/** Steps taken so far (all runs). */
export const AgentdStep = defineSearchAttributeKey('AgentdStep', SearchAttributeType.INT);
/** Last request's context tokens over the window, 0..1. */
export const AgentdContextFill = defineSearchAttributeKey('AgentdContextFill', SearchAttributeType.DOUBLE);
/** Spend so far in US dollars. */
export const AgentdCostUsd = defineSearchAttributeKey('AgentdCostUsd', SearchAttributeType.DOUBLE);
/** The agent's model name. */
export const AgentdModel = defineSearchAttributeKey('AgentdModel', SearchAttributeType.KEYWORD);

export const SESSION_SEARCH_ATTRIBUTES = [AgentdStatus, AgentdStep, AgentdContextFill, AgentdCostUsd, AgentdModel] as const;

/** The type names `temporal server start-dev --search-attribute` and `temporal operator search-attribute create` take. */
export const CLI_TYPE_NAMES: Readonly<Record<(typeof SESSION_SEARCH_ATTRIBUTES)[number]['type'], string>> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
};

/** `Name=Type` for each attribute, as `temporal server start-dev --search-attribute` takes them. */
export function devServerSearchAttributeArgs(): string[] {
  return SESSION_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${CLI_TYPE_NAMES[key.type]}`]);
}
