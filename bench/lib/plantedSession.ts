/**
 * One benchmark session's planted facts and its workspace file, kept in step with the requests it
 * sends: the file is written before the session starts and removed once turn 3 begins, so only the
 * first two turns' listings carry its name; the agent's first written path is learnt as it appears.
 * The facts and cost benchmarks both drive one per session.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '../../src/model/messages';
import { factList, factsPresent, learnWrittenPath, PLANTED_FILE, PLANTED_FILE_CONTENT, turnThreeBegun, type Fact } from './plantedFacts';

export class PlantedSession {
  readonly facts: Fact[] = factList();
  /**
   * Ids of the facts some step request so far held. A fact none held was never stated to the model
   * (a simulated agent that cannot tell which turn it is in skips the turn's steps), so it was not
   * lost by compaction either: the reports name the two apart, and tell `not yet` from gone.
   */
  readonly entered = new Set<string>();
  private fileRemoved = false;

  constructor(private readonly workspace: string) {}

  /** Writes the planted file; call before the session starts. */
  plant(): void {
    mkdirSync(this.workspace, { recursive: true });
    writeFileSync(join(this.workspace, PLANTED_FILE), PLANTED_FILE_CONTENT);
  }

  /** Call with each step request's messages (not a summary request's), in order. */
  stepRequest(messages: readonly ChatMessage[]): void {
    learnWrittenPath(this.facts, messages);
    for (const id of factsPresent(this.facts, messages)) this.entered.add(id);
    if (!this.fileRemoved && turnThreeBegun(messages)) {
      rmSync(join(this.workspace, PLANTED_FILE), { force: true });
      this.fileRemoved = true;
    }
  }
}
