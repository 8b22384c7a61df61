/**
 * A worker thread that answers requests one by one, for a store's work on very large messages
 * (DESIGN §4): writing 20 MB to SQLite takes the main thread for a few tenths of a second, taken
 * from every session's heartbeats, queries and tasks.
 */
import { Worker, type MessagePort } from 'node:worker_threads';

/** What a thread sends back: its answer, or the error it met with its message and code. */
export type ThreadReply<T> = { readonly id: number; readonly value: T } | { readonly id: number; readonly error: { message: string; code?: string } };

interface Waiting<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** The thread's error again, with its `code` (SQLITE_FULL, SQLITE_BUSY…) for the callers that sort errors by it. */
export class ThreadError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ThreadError';
  }
}

export class RequestThread<Request, Answer> {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting<Answer>>();
  private nextId = 0;

  /** `entry` is the compiled thread script; it is started at the first request. */
  constructor(
    private readonly entry: string,
    private readonly workerData?: unknown,
  ) {}

  request(request: Request): Promise<Answer> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, request });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(this.entry, { workerData: this.workerData });
    worker.on('message', (reply: ThreadReply<Answer>) => {
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      // Held only while asked: an idle thread must not keep a process alive after its shutdown.
      if (this.waiting.size === 0) worker.unref();
      if ('error' in reply) waiting?.reject(new ThreadError(reply.error.message, reply.error.code));
      else waiting?.resolve(reply.value);
    });
    const failAll = (cause: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.waiting.values()) waiting.reject(new Error(`the thread ${this.entry} stopped`, { cause }));
      this.waiting.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`exit code ${code}`)));
    return worker;
  }
}

/** Serves `answer` on the thread this runs in: each request's answer, or its error, goes back under its id. */
export function serveRequests<Request, Answer>(port: MessagePort | null, answer: (request: Request) => Answer): void {
  port?.on('message', ({ id, request }: { id: number; request: Request }) => {
    try {
      port.postMessage({ id, value: answer(request) });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      port.postMessage({ id, error: { message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) } });
    }
  });
}

