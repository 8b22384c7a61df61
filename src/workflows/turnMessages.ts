/**
 * The user's messages to a running session (signal `message`): queued for the next turn, or, sent
 * with `now` while a turn is open, for that turn's next model call (DESIGN §3); and the wait for one
 * between turns.
 */
import { MessageSignalSchema } from '../session/definitions';
import type { SessionInput } from '../session/input';
import { describeZodError } from '../session/validation';
import type { ManualCompactionQueue } from './manualCompactionQueue';
import type { SessionCarry } from './sessionCarry';
import type { SessionTranscript } from './sessionTranscript';

export class TurnMessages {
  /** True while the session waits between turns. */
  waiting = false;

  constructor(
    private readonly input: SessionInput,
    private readonly carry: SessionCarry,
    private readonly transcript: SessionTranscript,
    private readonly manual: ManualCompactionQueue,
    private readonly publish: () => void,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Handler of the `message` signal. Between turns `now` changes nothing: the message opens the next
   * turn at once either way.
   */
  receive(raw: unknown): void {
    const parsed = MessageSignalSchema.safeParse(raw);
    if (!parsed.success) return this.warn(`ignored a malformed message signal: ${describeZodError(parsed.error)}`);
    const queue = parsed.data.now && this.carry.turnOpen ? this.carry.steeringMessages : this.carry.pendingMessages;
    queue.push(parsed.data.text);
  }

  get steeringWaiting(): boolean {
    return this.carry.steeringMessages.length > 0;
  }

  /** Steering messages into the context, as user messages of this turn and step, before its model call. */
  async takeSteering(): Promise<void> {
    const texts = this.carry.steeringMessages.splice(0);
    if (texts.length === 0) return;
    await this.transcript.store(texts.map((content) => ({ message: { role: 'user', content }, turn: this.carry.turn, step: this.carry.step })));
  }

  /** A steering message that came as the turn ended was for a model that has finished: it opens the next turn. */
  keepLateSteering(): void {
    this.carry.pendingMessages.unshift(...this.carry.steeringMessages.splice(0));
  }

  /**
   * Waits for a message: up to the session's `awaitMessagesSeconds`, or as long as it takes after an
   * interrupt; false when none came.
   */
  async awaitNext(): Promise<boolean> {
    this.waiting = true;
    const held = this.carry.heldForMessage === true;
    // A session that waits for no message would write the status only to overwrite it at once.
    if (held || this.input.awaitMessagesSeconds > 0) this.publish();
    const arrived = await this.manual.waitUntil(() => this.carry.pendingMessages.length > 0, held ? undefined : this.input.awaitMessagesSeconds * 1000);
    this.waiting = false;
    delete this.carry.heldForMessage;
    // With no message the session ends, and its end publishes the final status.
    if (arrived) this.publish();
    return arrived;
  }

  /** Opens the next turn with the oldest pending message. */
  async startTurn(): Promise<void> {
    const text = this.carry.pendingMessages.shift();
    if (text === undefined) throw new Error('startTurn without a pending message');
    this.carry.turn += 1;
    await this.transcript.store([{ message: { role: 'user', content: text }, turn: this.carry.turn }]);
    this.carry.turnOpen = true;
  }
}
