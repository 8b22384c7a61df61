/**
 * The result a parent reads for a `delegate` call: the child's whole answer (from the child's own
 * rows) and the files it made, copied into the parent's workspace; or why there was no answer.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { messageText } from '../model/messageText';
import { collectArtifacts, type Artifacts } from '../tools/artifacts';
import { capOutput } from '../tools/capOutput';
import type { ActivityDeps } from './deps';
import type { DelegationOutcome } from './delegationTypes';

export async function delegationOutput(deps: Pick<ActivityDeps, 'store' | 'workspaceRoot'>, workspace: string, outcome: DelegationOutcome): Promise<string> {
  if (outcome.kind === 'refused') return `error: delegate refused: ${outcome.reason}`;
  if (outcome.kind === 'failed') return `error: child session ${outcome.childSessionId} failed: ${outcome.reason}`;
  const answer = await wholeAnswer(deps, outcome);
  // A child that called no tool never made a workspace: it has no files, wherever it ran.
  const artifacts =
    outcome.workspaceHost === undefined
      ? { files: [], unlisted: 0 }
      : await collectArtifacts(path.resolve(deps.workspaceRoot, outcome.childSessionId), workspace, outcome.childSessionId, outcome.workspaceHost);
  const cost = outcome.costUsd > 0 ? `, $${outcome.costUsd.toFixed(4)}` : '';
  return [
    `child session ${outcome.childSessionId} ended (${outcome.outcome}) after ${outcome.steps} step(s), ${outcome.totalTokens} tokens${cost}.`,
    ...(await answerLines(workspace, outcome, answer)),
    artifactLines(artifacts),
  ].join('\n');
}

/** The answer, whole when it fits the cap; else its head and tail, the whole text in a file the parent can read. */
async function answerLines(workspace: string, outcome: Extract<DelegationOutcome, { kind: 'ended' }>, answer: string): Promise<string[]> {
  if (answer.length <= outcome.answerCapChars) return ['answer:', answer];
  const file = path.posix.join('delegates', `${outcome.childSessionId}.answer.md`);
  await mkdir(path.join(workspace, 'delegates'), { recursive: true });
  await writeFile(path.join(workspace, file), answer);
  return [`answer (${answer.length} characters, cut to ${outcome.answerCapChars}; read_file ${file} has it whole):`, capOutput(answer, outcome.answerCapChars)];
}

/** The finish tool keeps its answer in the row's meta; a plain reply is its own text. */
async function wholeAnswer(deps: Pick<ActivityDeps, 'store'>, outcome: Extract<DelegationOutcome, { kind: 'ended' }>): Promise<string> {
  if (outcome.answerSeq === undefined) return outcome.answer ?? '';
  const row = await deps.store.get(outcome.childSessionId, outcome.answerSeq);
  // The child stored it before it ended; a store that lost it is a fault to retry, not an empty answer.
  if (row === undefined) throw new Error(`child session ${outcome.childSessionId} has no row ${outcome.answerSeq} for its answer`);
  const finished = row.meta.finished as { answer?: unknown } | undefined;
  return typeof finished?.answer === 'string' ? finished.answer : messageText(row.message);
}

function artifactLines(artifacts: Artifacts): string {
  if (artifacts.files.length === 0) return artifacts.notCopied ? `files: not read (${artifacts.notCopied})` : 'files: none';
  const where = artifacts.copiedTo ? `copied to ${artifacts.copiedTo}/` : `not copied: ${artifacts.notCopied ?? ''}`;
  const more = artifacts.unlisted > 0 ? `\n- … and ${artifacts.unlisted} more` : '';
  return `files (${where}):\n${artifacts.files.map((file) => `- ${file.path} (${file.bytes} bytes)`).join('\n')}${more}`;
}
