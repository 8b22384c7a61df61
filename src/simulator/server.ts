/** The simulator's HTTP server: an OpenAI-compatible chat completions endpoint on 127.0.0.1. */
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { injectedStatus, invalidRequest, notFound, type ErrorResponse } from './errors';
import { resolveSimulatorOptions, SummarizerBehaviour, type Fault, type ResolvedSimulatorOptions, type SimulatorOptions } from './options';
import { PromptCache } from './promptCache';
import { completionBody, SIM_CREATED } from './response';
import { nextReply } from './script';
import { RejectionReason, StatsRecorder, type SimulatorStats } from './stats';
import { validateChatRequest } from './strict';
import { isSummarizationRequest, summarizerFor, summaryAnswer } from './summarize';

/** Printed wherever the simulator answers, so nobody mistakes its output for a real model's. */
export const SIMULATOR_BANNER =
  '!!! SIMULATED MODEL: answers come from agentd\'s built-in scripted simulator, NOT a real LLM !!!';

export interface RunningSimulator {
  /** e.g. http://127.0.0.1:PORT/v1, ready for `new OpenAI({ baseURL })`. */
  readonly baseURL: string;
  readonly port: number;
  stats(): SimulatorStats;
  /** Closes the server and every open connection, hung requests included. */
  stop(): Promise<void>;
}

/** Far above any prompt that fits a context window; stops a runaway client from filling memory. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** A 200 whose body stops halfway, as when a proxy cuts a response short. */
const MALFORMED_BODY = '{"id":"chatcmpl-sim-malformed","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis';

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, error: ErrorResponse): void {
  sendJson(res, error.status, error.body, error.headers);
}

/** The whole body as text, or undefined when it is over MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function modelEntry(model: string) {
  return { id: model, object: 'model', created: SIM_CREATED, owned_by: 'agentd-simulator' };
}

export async function startSimulator(options?: SimulatorOptions): Promise<RunningSimulator> {
  const settings: ResolvedSimulatorOptions = resolveSimulatorOptions(options);
  const stats = new StatsRecorder();
  const promptCache = new PromptCache();
  // Separate from stats so resetting stats does not shift which requests the fault plan hits.
  let requestIndex = 0;
  const stopping = new AbortController();
  // Every request waiting out its latency listens for the stop: a thousand sessions mean a thousand listeners, not a leak.
  setMaxListeners(0, stopping.signal);

  async function chatCompletion(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const index = requestIndex;
    requestIndex += 1;
    stats.request();
    const fault: Fault | undefined = settings.faultPlan?.(index);
    const raw = await readBody(req);

    if (fault?.kind === 'hang') {
      // Never answer; stop() destroys the socket if the client has not given up by then.
      stats.reject(RejectionReason.injected);
      return;
    }
    const delay = settings.latencyMs + (fault?.kind === 'latency' ? fault.ms : 0);
    if (delay > 0) await sleep(delay, undefined, { signal: stopping.signal });

    if (fault?.kind === 'status') {
      stats.reject(RejectionReason.injected);
      return sendError(res, injectedStatus(fault.status, fault.retryAfterSeconds));
    }
    if (fault?.kind === 'malformed') {
      stats.reject(RejectionReason.injected);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(MALFORMED_BODY);
      return;
    }

    if (raw === undefined) {
      stats.reject(RejectionReason.badRequest);
      return sendJson(res, 413, invalidRequest(`Request body is larger than ${MAX_BODY_BYTES} bytes.`, null).body, {
        connection: 'close',
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      stats.reject(RejectionReason.badRequest);
      return sendError(res, invalidRequest('We could not parse the JSON body of your request. The OpenAI API expects a JSON payload.', null));
    }

    const validation = validateChatRequest(body, settings);
    if (!validation.ok) {
      stats.reject(validation.reason);
      return sendError(res, validation.error);
    }
    const { request, tools, promptTokens } = validation;
    const summarizing = isSummarizationRequest(request.messages);
    const summarizer = summarizing ? summarizerFor(request.messages, settings.summarizer) : undefined;
    if (summarizer === SummarizerBehaviour.fail) {
      // Only the summarizer breaks: the session's ordinary requests keep being served.
      stats.reject(RejectionReason.injected);
      stats.summaryFailed();
      return sendError(res, injectedStatus(500));
    }
    const maxTokens = request.max_completion_tokens ?? request.max_tokens;
    const { reply, finishReason } =
      summarizer !== undefined
        ? summaryAnswer(request.messages, summarizer, maxTokens)
        : { reply: nextReply(request.messages, settings), finishReason: undefined };
    const requestKey = JSON.stringify([request.model, request.messages, tools]);
    const lastMessage = request.messages[request.messages.length - 1];
    const cachedTokens = promptCache.lookup(request.messages, tools);
    const answer = completionBody(settings.model, requestKey, reply, promptTokens, cachedTokens, finishReason === 'length');
    const sample = {
      promptTokens,
      completionTokens: answer.usage.completion_tokens,
      cachedTokens: answer.usage.prompt_tokens_details.cached_tokens,
      messageCount: request.messages.length,
      lastRole: lastMessage?.role ?? 'user',
      summarizing,
    };
    stats.answered(sample);
    if (summarizing) stats.summaryAnswered(sample);
    settings.observe?.({ index, messages: request.messages, promptTokens, cachedTokens: sample.cachedTokens, summarizing });
    sendJson(res, 200, answer, {
      'x-request-id': `req_sim_${index}`,
    });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    if (method === 'POST' && path === '/v1/chat/completions') return chatCompletion(req, res);
    if (method === 'GET' && path === '/v1/models') return sendJson(res, 200, { object: 'list', data: [modelEntry(settings.model)] });
    if (method === 'GET' && path.startsWith('/v1/models/')) {
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      if (id === settings.model) return sendJson(res, 200, modelEntry(id));
      return sendError(res, notFound(`The model '${id}' does not exist`, 'model_not_found'));
    }
    if (method === 'GET' && path === '/sim/stats') return sendJson(res, 200, stats.snapshot());
    if (method === 'POST' && path === '/sim/reset-stats') {
      stats.reset();
      return sendJson(res, 200, stats.snapshot());
    }
    sendError(res, notFound(`Invalid URL (${method} ${path})`));
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (stopping.signal.aborted) return; // a delayed answer cut off by stop(): nobody is listening
      if (res.headersSent) return void res.destroy();
      const message = error instanceof Error ? error.message : String(error);
      sendJson(res, 500, { error: { message: `simulator failure: ${message}`, type: 'server_error', param: null, code: null } });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let stopped: Promise<void> | undefined;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    stats: () => stats.snapshot(),
    stop() {
      stopped ??= new Promise<void>((resolve, reject) => {
        stopping.abort();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        // Keep-alive and hung connections would otherwise hold close() open forever.
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
