/** The one owner of the live context: every entry enters it here, and a compaction replaces it here. */
import { patched } from '@temporalio/workflow';
import type { StoreMessagesInput } from '../activities/types';
import type { ChatMessage } from '../model/messages';
import { isOversized, type LedgerEntry, type MessageMeasure, type ResolvedCompactionSettings } from '../policy';
import type { SessionActivities } from './activityOptions';
import type { SeqAllocator } from './seqAllocator';
import type { SessionCarry } from './sessionCarry';
import type { MaybePending } from './maybePending';

/** Marks histories where an oversized task or user message enters the context as a head-and-tail view. */
const USER_TEXT_VIEW_PATCH = 'oversized-user-text-views';
/** Marks histories where an oversized model reply enters the context as a view; before, it entered whole. */
const REPLY_VIEW_PATCH = 'oversized-reply-views';

/** A message to store and where in the session it belongs. */
export interface PlacedMessage {
  message: ChatMessage;
  turn: number;
  step?: number;
  pinned?: boolean;
}

/** What replaces an entry too big to ever fit by a view (a store write): the compaction controller. */
export interface OversizedViews {
  viewIfOversized(entry: LedgerEntry): Promise<LedgerEntry>;
}

export class SessionTranscript {
  constructor(
    private readonly sessionId: string,
    private readonly settings: ResolvedCompactionSettings,
    private readonly storeMessages: SessionActivities['storeMessages'],
    private readonly views: OversizedViews,
    private readonly seqs: SeqAllocator,
    /** The carry's ledger and position, changed in place. */
    private readonly carried: Pick<SessionCarry, 'ledger' | 'turn' | 'step'>,
  ) {}

  /** The live context, in order. */
  get entries(): LedgerEntry[] {
    return this.carried.ledger;
  }


  /** A compaction's result becomes the live context. */
  adopt(ledger: LedgerEntry[]): void {
    this.carried.ledger = ledger;
  }

  /**
   * The model's reply, already stored by the model activity, at the current step; one too big to fit
   * (a runaway answer, a huge write_file argument) enters as a view. The patch is asked only for such a
   * reply, so ordinary histories carry no marker for it.
   */
  addReply(measure: MessageMeasure): MaybePending {
    const entry = this.atCurrentStep(measure);
    return this.oversized(entry) && patched(REPLY_VIEW_PATCH) ? this.addView(entry) : this.addWhole(entry);
  }

  /** A tool result, already stored by the tool activity; one too big to fit enters as a view. */
  addToolResult(measure: MessageMeasure): MaybePending {
    const entry = this.atCurrentStep(measure);
    return this.oversized(entry) ? this.addView(entry) : this.addWhole(entry);
  }

  private addWhole(entry: LedgerEntry): undefined {
    this.carried.ledger.push(entry);
    return undefined;
  }

  private async addView(entry: LedgerEntry): Promise<void> {
    this.carried.ledger.push(await this.views.viewIfOversized(entry));
  }

  /** Stores `messages` under fresh seqs, then adds them to the context. */
  async store(messages: PlacedMessage[], claim?: StoreMessagesInput['claim']): Promise<void> {
    await this.storeAt(messages.map((placed) => ({ ...placed, seq: this.seqs.next() })), claim);
  }

  /**
   * Stores each message under the seq given, then adds them to the context; the seqs, in order. A seq
   * already stored keeps its row (an attempt that finished after all), and that row enters the context.
   */
  async storeAt(messages: Array<PlacedMessage & { seq: number }>, claim?: StoreMessagesInput['claim']): Promise<number[]> {
    const measures = await this.storeMessages({
      sessionId: this.sessionId,
      messages: messages.map(({ seq, message }) => ({ seq, message })),
      ...(claim === undefined ? {} : { claim }),
    });
    for (const [index, measure] of measures.entries()) {
      const placed = messages[index]!;
      const entry: LedgerEntry = { ...measure, turn: placed.turn, step: placed.step ?? 0, ...(placed.pinned ? { pinned: true } : {}) };
      // A task or message too big for the window (a stock-CLI start, a raw signal) is kept whole in the store
      // and shown as a view that read_output pages, like an oversized tool result; else it would end the session.
      // The patch is asked only for such text, so ordinary histories carry no marker for it.
      const oversizedUser = placed.message.role === 'user' && this.oversized(entry);
      this.carried.ledger.push(oversizedUser && patched(USER_TEXT_VIEW_PATCH) ? await this.views.viewIfOversized(entry) : entry);
    }
    return messages.map(({ seq }) => seq);
  }

  private atCurrentStep(measure: MessageMeasure): LedgerEntry {
    return { ...measure, turn: this.carried.turn, step: this.carried.step };
  }

  private oversized(entry: LedgerEntry): boolean {
    return this.settings.enabled && isOversized(entry, this.settings, this.settings.contextWindow);
  }
}
