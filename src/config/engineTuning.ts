/**
 * The settings that take latency out of a step, server side and worker side, in one table: the dev
 * server that `agentd dev` and the tests start applies `server`, and `createAgentWorker` applies
 * `worker`. DESIGN §8 "Where a step's time goes" gives the measurements behind each entry.
 * A production cluster is configured by its operator; the worker side applies there too.
 */

import { HEARTBEAT_EVERY_MS } from '../activities/types';

/** Idle sessions kept in a worker's workflow cache unless AGENTD_WORKFLOW_CACHE_SIZE says otherwise. */
export const DEFAULT_WORKFLOW_CACHE_SIZE = 50;

/** Activities a worker runs at once unless AGENTD_MAX_CONCURRENT_ACTIVITIES says otherwise. */
export const DEFAULT_MAX_CONCURRENT_ACTIVITIES = 1000;

export const ENGINE_TUNING = {
  server: {
    dynamicConfig: {
      /**
       * The activity a workflow task schedules comes back to the worker in the reply to that task,
       * instead of through a matching poll: one round trip less per activity. Older servers (CLI
       * 1.5) have it off; 1.9 has it on already, so this keeps the step the same on both.
       */
      'system.enableActivityEagerExecution': true,
      /**
       * The history shard hands every new workflow task to matching from its transfer queue, which
       * by default it reads at most 20 times a second. The dev server has one shard, so a single
       * session (about 25 workflow tasks a second) waited for the reader: a step went from ~84 to
       * ~50 ms when the limit was lifted.
       */
      'history.transferProcessorMaxPollRPS': 1000,
      /**
       * A worker stopped cold (SIGSTOP, a frozen VM) leaves its long polls open, and the server
       * went on handing them retries of the very activities it had lost, each then lost for
       * another heartbeat timeout: takeover took 45-75 s. Pinging a connection after 2 s without
       * traffic and closing it 2 s later drops a frozen worker's polls within ~4 s; a live
       * worker answers the pings.
       */
      'frontend.keepAliveTime': '2s',
      'frontend.keepAliveTimeout': '2s',
    },
    /**
     * Every state transition is one SQLite transaction. In the default rollback-journal mode each
     * commit syncs the disk several times, which on a shared disk costs more than all the rest of a
     * step. WAL with `synchronous=normal` syncs at checkpoints only: a crash of the server process
     * loses nothing committed, a power cut may lose the last transactions (the file stays sound),
     * which is the right trade for a dev server.
     */
    sqlitePragmas: {
      journal_mode: 'wal',
      synchronous: 'normal',
    },
  },
  worker: {
    /**
     * Workflows kept in memory between tasks (AGENTD_WORKFLOW_CACHE_SIZE overrides it). The SDK's
     * default grows with the heap (over a thousand here), and each cached session held ~1.8 MB (about
     * 0.9 MB less since sessions share zod, src/workflows/sharedZod.ts); an evicted one costs
     * nothing until its next message, which then replays its run's history.
     * Fifty covers fifty sessions stepping at once with no replay between their steps; what 500
     * idle sessions cost with it, and a wake with and without the cache, is measured by
     * `npm run bench -- --only=overhead` (bench/results/bench-overhead.md).
     */
    maxCachedWorkflows: DEFAULT_WORKFLOW_CACHE_SIZE,
    /**
     * Activities in flight at once (AGENTD_MAX_CONCURRENT_ACTIVITIES overrides it). Nearly all of a
     * worker's activity time is a model call waiting on the network, one per stepping session; the
     * SDK's default of 100 capped a worker at 100 sessions' model calls, 50 steps a second at a 2 s
     * model, with its CPU mostly idle. A waiting call costs a socket and a few KB. Measured by
     * `npm run bench -- --only=scale` (bench/results/bench-scale.md).
     */
    maxConcurrentActivityTaskExecutions: DEFAULT_MAX_CONCURRENT_ACTIVITIES,
    /**
     * Stated, not left to the SDK's default: every activity agentd schedules on the worker's own
     * queue may come back eagerly (see the server side above); the table in
     * src/workflows/activityOptions.ts does not turn it off.
     */
    maxEagerActivityReservationsPerWorkflowTask: 3,
    /**
     * One V8 context shared by every cached workflow (the SDK's default, stated because the memory
     * figures depend on it): a separate context per workflow costs several MB each.
     */
    reuseV8Context: true,
    /**
     * Heartbeats reach the server at least every HEARTBEAT_EVERY_MS (the SDK's default throttle is
     * 80% of the heartbeat timeout): the timeouts in src/workflows/activityOptions.ts count on it.
     */
    maxHeartbeatThrottleInterval: HEARTBEAT_EVERY_MS,
    defaultHeartbeatThrottleInterval: HEARTBEAT_EVERY_MS,
  },
} as const;

export type EngineTuning = typeof ENGINE_TUNING;
