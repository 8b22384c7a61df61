/**
 * What a schedule of sessions is made of, checked before anything is sent: its name (the prefix of
 * every session it starts), when it fires, and what it does when a tick comes while the last
 * session still runs or after an outage.
 */
import { z } from 'zod';
import { sessionIdProblem } from '../session/sessionId';
import { describeZodError } from '../session/validation';

/** What Temporal appends to a scheduled run's workflow id: `-` and the time, RFC 3339 in UTC. */
const RUN_SUFFIX_CHARS = '-2026-12-05T03:00:00Z'.length;
/** A session id is at most 128 characters; a schedule's runs must all fit. */
const SCHEDULE_NAME_MAX_CHARS = 128 - RUN_SUFFIX_CHARS;

/** A duration as Temporal reads one: a whole number and a unit, e.g. `30s`, `10m`, `2h`, `1d`. */
const DurationSchema = z.string().regex(/^[1-9]\d*(ms|s|m|h|d)$/, 'expected a whole number and a unit: 500ms, 30s, 10m, 2h or 1d');

/** What a tick does while the session of an earlier tick still runs; `skip` starts nothing. */
export const OVERLAP_POLICIES = ['skip', 'buffer-one', 'buffer-all', 'cancel-other', 'terminate-other', 'allow-all'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

export const ScheduleSpecSchema = z
  .object({
    name: z
      .string()
      .max(SCHEDULE_NAME_MAX_CHARS, `at most ${SCHEDULE_NAME_MAX_CHARS} characters, so each run's id (name-<time>) is a valid session id`)
      .superRefine((name, context) => {
        const problem = sessionIdProblem(name);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      }),
    /** Standard five-field cron, in UTC unless it starts with `CRON_TZ=<zone>`. */
    cron: z.string().trim().min(1).optional(),
    every: DurationSchema.optional(),
    overlap: z.enum(OVERLAP_POLICIES).default('skip'),
    /**
     * How late a missed tick may still run after the server or the workers were down: an agent job
     * run hours late is rarely wanted, so the default is an hour (Temporal's own is a year).
     */
    catchupWindow: DurationSchema.default('1h'),
    /** A random delay up to this long before each tick, so many schedules do not all start at once. */
    jitter: DurationSchema.optional(),
  })
  .refine((spec) => (spec.cron === undefined) !== (spec.every === undefined), { message: 'give exactly one of cron and every', path: ['cron'] });

export type ScheduleSpec = z.output<typeof ScheduleSpecSchema>;

/** A schedule that cannot be made as asked; the message names the field. */
export class ScheduleInputError extends Error {
  override readonly name = 'ScheduleInputError';
}

/** `raw` as given on a command line or by code: anything the schema rejects is named. */
export function parseScheduleSpec(raw: unknown): ScheduleSpec {
  const parsed = ScheduleSpecSchema.safeParse(raw);
  if (!parsed.success) throw new ScheduleInputError(`invalid schedule: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
