/** The local activities a workflow ran, as its history's markers record them (they have no events of their own). */
import type { temporal } from '@temporalio/proto';

/** A local activity as its history marker records it: its type, its attempts, and the failure's type when it failed. */
export interface LocalActivityRecord {
  readonly activityType: string;
  /** The worker retries a local activity itself; the marker records the attempt that ended it. */
  readonly attempt: number;
  readonly failureType?: string;
}

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** Every local activity in `history`, in the order their markers were recorded. */
export function localActivitiesOf(history: temporal.api.history.v1.IHistory): LocalActivityRecord[] {
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) return [];
    const data = marker.details?.['data']?.payloads?.[0]?.data;
    const fields = JSON.parse(Buffer.from(data ?? []).toString('utf8') || '{}') as { activity_type?: string; attempt?: number };
    const failure = marker.failure;
    const failureType = failure?.applicationFailureInfo?.type ?? failure?.cause?.applicationFailureInfo?.type ?? undefined;
    return [{ activityType: fields.activity_type ?? 'unknown', attempt: fields.attempt ?? 1, ...(failureType ? { failureType } : {}) }];
  });
}
