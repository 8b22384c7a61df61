/** `agentd sim`: runs the built-in model simulator in the foreground until Ctrl-C. */
import { parseArgs } from 'node:util';
import { ExitCode, UsageError, type Command } from '../command';
import { SimulatorOptionsSchema, SUMMARIZER_BEHAVIOURS, SUMMARIZER_ENV, type SimulatorOptions } from '../../simulator/options';
import { SIMULATOR_BANNER, startSimulator } from '../../simulator/server';

const DEFAULT_PORT = 8787;
const defaults = SimulatorOptionsSchema.parse({});

const help = `usage: agentd sim [options]

Serves an OpenAI-compatible POST /v1/chat/completions on 127.0.0.1 that answers with a
scripted, deterministic agent instead of a real model. For tests, benchmarks and the demo.
Put "[sim steps=N output=MIN-MAX summarizer=NAME]" in a task to set its step count, command
output size and (for its session) how summarization requests are answered.

Options:
  --port N               port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --context-window N     prompts above N tokens are rejected (default ${defaults.contextWindow})
  --default-steps N      steps of a task without a directive (default ${defaults.defaultSteps})
  --output-bytes MIN-MAX size of run_command output asked for (default ${defaults.outputBytes.min}-${defaults.outputBytes.max})
  --latency-ms N         delay before every answer (default ${defaults.latencyMs})
  --model ID             the one model id accepted (default ${defaults.model})
  --summarizer NAME      how summarization requests are answered: ${SUMMARIZER_BEHAVIOURS.join(', ')}
                         (default: $${SUMMARIZER_ENV}, else sectioned)
  -h, --help             show this help`;

/** Flag that sets each option, so a bad value is reported under the name the user typed. */
const FLAG_OF: Readonly<Record<string, string>> = {
  port: '--port',
  contextWindow: '--context-window',
  defaultSteps: '--default-steps',
  outputBytes: '--output-bytes',
  latencyMs: '--latency-ms',
  model: '--model',
  summarizer: '--summarizer',
};

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} expects a whole number, got '${value}'`);
  return Number(value);
}

function byteRange(value: string | undefined): { min: number; max: number } | undefined {
  if (value === undefined) return undefined;
  const found = /^(\d+)-(\d+)$/.exec(value);
  if (found === null) throw new UsageError(`--output-bytes expects MIN-MAX (e.g. 2000-8000), got '${value}'`);
  return { min: Number(found[1]), max: Number(found[2]) };
}

function readFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        'context-window': { type: 'string' },
        'default-steps': { type: 'string' },
        'output-bytes': { type: 'string' },
        'latency-ms': { type: 'string' },
        model: { type: 'string' },
        summarizer: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    // parseArgs already names the flag ("Unknown option '--bogus'"); keep its words.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Turns argv into simulator options, or throws UsageError naming the flag at fault. */
export function parseSimArgs(argv: string[]): { help: true } | { help: false; options: SimulatorOptions } {
  const values = readFlags(argv);
  if (values.help === true) return { help: true };

  const candidate = {
    port: wholeNumber('--port', values.port) ?? DEFAULT_PORT,
    contextWindow: wholeNumber('--context-window', values['context-window']),
    defaultSteps: wholeNumber('--default-steps', values['default-steps']),
    outputBytes: byteRange(values['output-bytes']),
    latencyMs: wholeNumber('--latency-ms', values['latency-ms']),
    model: values.model,
    summarizer: values.summarizer,
  };
  // Drop unset flags so the schema's defaults apply.
  const given = Object.fromEntries(Object.entries(candidate).filter(([, value]) => value !== undefined));
  const parsed = SimulatorOptionsSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '');
    throw new UsageError(`${FLAG_OF[key] ?? 'option'}: ${issue?.message ?? 'invalid value'}`);
  }
  return { help: false, options: parsed.data };
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export const simCommand: Command = {
  name: 'sim',
  summary: 'run the built-in OpenAI-compatible model simulator (no API key needed)',
  help,
  async run(argv) {
    const parsed = parseSimArgs(argv);
    if (parsed.help) {
      process.stdout.write(`${help}\n`);
      return ExitCode.ok;
    }
    let simulator;
    try {
      simulator = await startSimulator(parsed.options);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const message = code === 'EADDRINUSE' ? `port ${String(parsed.options.port)} is in use; try --port 0` : String(error);
      process.stderr.write(`agentd sim: ${message}\n`);
      return ExitCode.unavailable;
    }
    // Listening before the line that says it is up: a Ctrl-C right after that line stops it cleanly.
    const stopped = waitForSignal();
    process.stderr.write(`${SIMULATOR_BANNER}\nsimulator listening on ${simulator.baseURL}\n`);
    const signal = await stopped;
    await simulator.stop();
    const { requests, rejected } = simulator.stats();
    const refused = Object.values(rejected).reduce((sum, count) => sum + count, 0);
    process.stderr.write(`simulator stopped on ${signal} after ${requests} request(s), ${refused} rejected\n`);
    return ExitCode.ok;
  },
};
