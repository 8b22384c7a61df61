/** The simulator over HTTP for one test, driven through the real openai client as agentd drives it. */
import OpenAI from 'openai';
import type { ChatMessage } from '../../src/model/messages';
import type { SimulatorOptions } from '../../src/simulator/options';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';

export const MODEL = 'agentd-sim';
export const SYSTEM: ChatMessage = { role: 'system', content: 'You are agentd, an autonomous agent. Use the tools.' };

/** Starts a simulator for one test and always stops it, even when the test fails; the client does not retry. */
export async function withSim(options: SimulatorOptions, body: (sim: RunningSimulator, client: OpenAI) => Promise<void>): Promise<void> {
  const sim = await startSimulator(options);
  try {
    await body(sim, new OpenAI({ apiKey: 'sim', baseURL: sim.baseURL, maxRetries: 0 }));
  } finally {
    await sim.stop();
  }
}
