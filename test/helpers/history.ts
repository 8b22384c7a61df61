/** Workflow history as the server stores it: encoded bytes, for size and content checks. */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export async function historyBytes(client: Client, workflowId: string): Promise<Buffer> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return Buffer.from(temporal.api.history.v1.History.encode(history).finish());
}
