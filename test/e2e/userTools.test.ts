/**
 * User tool modules and MCP configuration: what a worker refuses, with errors naming the module,
 * tool and field; and a worker started from its configuration whose user tool a session calls.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readConfig } from '../../src/config/config';
import { McpConfigError, parseMcpServers, readMcpServers } from '../../src/mcp/config';
import { mcpToolName } from '../../src/mcp/toolName';
import { startSimulator } from '../../src/simulator/server';
import { builtinTools } from '../../src/tools/registry';
import { toolSpec } from '../../src/tools/tool';
import { loadUserTools, ToolModuleError } from '../../src/tools/userTools';
import { startWorkerFromConfig } from '../../src/worker';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { toolResults } from '../../harness/transcriptChecks';
import { suiteStack } from '../helpers/suiteStack';

const ZOD = JSON.stringify(require.resolve('zod'));
const BUILTIN_NAMES = builtinTools.map((tool) => tool.name);

/** A CommonJS tools module as a user would write it; `body` is what `exports.tools` is set to. */
function toolModule(body: string): string {
  return `const { z } = require(${ZOD});\nexports.tools = ${body};\n`;
}

const COUNT_WORDS = `[{
  name: 'count_words',
  description: 'Counts the words of a text',
  input: z.object({ text: z.string().describe('the text') }),
  effect: 'read',
  async run({ text }, ctx) {
    const words = text.split(/\\s+/).filter(Boolean).length;
    return { output: words + ' words (counted in ' + require('node:path').basename(ctx.workspace) + ')' };
  },
}]`;

describe('user tool modules', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-usertools-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function moduleFile(name: string, text: string): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, text);
    return file;
  }

  it('loads a module\'s tools; their zod schema becomes the JSON schema the model sees', async () => {
    const file = await moduleFile('good.js', toolModule(COUNT_WORDS));
    const [tool, ...rest] = await loadUserTools(file, BUILTIN_NAMES);
    assert.equal(rest.length, 0);
    assert.ok(tool);
    assert.equal(tool.name, 'count_words');
    assert.deepEqual(toolSpec(tool).function.parameters.required, ['text']);
  });

  it('accepts a default export of an array (an ES module)', async () => {
    const file = await moduleFile(
      'default.mjs',
      `import { createRequire } from 'node:module';\nconst { z } = createRequire(import.meta.url)(${ZOD});\n` +
        `export default [{ name: 'noop', description: 'does nothing', input: z.object({}), effect: 'read', run: async () => ({ output: '' }) }];\n`,
    );
    assert.deepEqual((await loadUserTools(file)).map((tool) => tool.name), ['noop']);
  });

  const refusals: { name: string; text: string; code: string; message: RegExp }[] = [
    { name: 'none.js', text: 'exports.other = 1;\n', code: 'no_tools_export', message: /none\.js exports no tools/ },
    {
      name: 'badname.js',
      text: toolModule(`[{ name: 'has space', description: 'd', input: z.object({}), effect: 'read', run: async () => ({ output: '' }) }]`),
      code: 'bad_tool',
      message: /badname\.js: tool 0 \("has space"\): name: expected 1-64 characters/,
    },
    {
      name: 'badeffect.js',
      text: toolModule(`[{ name: 'ok', description: 'd', input: z.object({}), effect: 'maybe', run: async () => ({ output: '' }) }]`),
      code: 'bad_tool',
      message: /badeffect\.js: tool 0 \("ok"\): effect:/,
    },
    {
      name: 'noschema.js',
      text: toolModule(`[{ name: 'ok', description: 'd', input: { type: 'object' }, effect: 'read', run: async () => ({ output: '' }) }]`),
      code: 'bad_tool',
      message: /noschema\.js: tool 0 \("ok"\): input: expected a zod 4 schema/,
    },
    {
      name: 'shadow.js',
      text: toolModule(`[{ name: 'read_file', description: 'd', input: z.object({}), effect: 'read', run: async () => ({ output: '' }) }]`),
      code: 'duplicate_name',
      message: /shadow\.js: tool 0 \("read_file"\): name is already taken/,
    },
    { name: 'broken.js', text: 'throw new Error("boom at load");\n', code: 'import_failed', message: /broken\.js could not be loaded: boom at load/ },
  ];
  for (const refusal of refusals) {
    it(`refuses ${refusal.name} with ${refusal.code}`, async () => {
      const file = await moduleFile(refusal.name, refusal.text);
      await assert.rejects(loadUserTools(file, BUILTIN_NAMES), (error: unknown) => {
        assert.ok(error instanceof ToolModuleError);
        assert.equal(error.code, refusal.code);
        assert.match(error.message, refusal.message);
        return true;
      });
    });
  }
});

describe('MCP configuration', () => {
  it('reads stdio and http servers, as an array or { servers }', () => {
    const servers = parseMcpServers(
      JSON.stringify({
        servers: [
          { name: 'fs', transport: 'stdio', command: 'node', args: ['server.js', '{workspace}'] },
          { name: 'web', transport: 'http', url: 'http://127.0.0.1:3001/mcp' },
        ],
      }),
      'test',
    );
    assert.deepEqual(servers.map((server) => server.name), ['fs', 'web']);
  });

  it('names the bad field', () => {
    const cases: [unknown, RegExp][] = [
      [[{ name: 'a', transport: 'stdio' }], /servers\[0\]\.command/],
      [[{ name: 'a', transport: 'ftp', url: 'x' }], /servers\[0\]\.transport/],
      [[{ name: 'a', transport: 'stdio', command: 'x', maxInstances: 0 }], /servers\[0\]\.maxInstances/],
      [[{ name: 'a b', transport: 'http', url: 'http://x/' }], /servers\[0\]\.name: expected 1-32 characters/],
      [[{ name: 'a', transport: 'http', url: 'http://x/', extra: 1 }], /servers\[0\]/],
      [
        [
          { name: 'a', transport: 'http', url: 'http://x/' },
          { name: 'a', transport: 'http', url: 'http://y/' },
        ],
        /servers\[1\]\.name: server name "a" is used twice/,
      ],
    ];
    for (const [config, message] of cases) {
      assert.throws(() => parseMcpServers(JSON.stringify(config), 'AGENTD_MCP_SERVERS'), (error: unknown) => {
        assert.ok(error instanceof McpConfigError);
        assert.match(error.message, /^AGENTD_MCP_SERVERS: /);
        assert.match(error.message, message);
        return true;
      });
    }
    assert.throws(() => readMcpServers({ AGENTD_MCP_SERVERS: '[]', AGENTD_MCP_CONFIG: 'x.json' }), /not both/);
    assert.throws(() => readMcpServers({ AGENTD_MCP_CONFIG: '/nonexistent/mcp.json' }), /cannot read \/nonexistent\/mcp\.json/);
  });

  it('stops `agentd worker` before it connects, exit code 2, naming the bad module or field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentd-badworker-'));
    try {
      const badTools = join(dir, 'tools.js');
      await writeFile(badTools, toolModule(`[{ name: 'a', description: 'd', input: z.object({}), effect: 'read' }]`));
      // An address nobody listens on: exit code 2 shows the worker never tried to connect (that would be 4).
      const base = { TEMPORAL_ADDRESS: '127.0.0.1:9', AGENTD_HOME: dir };
      const cases: [NodeJS.ProcessEnv, RegExp][] = [
        [{ AGENTD_TOOLS_MODULE: badTools }, /tools module .*tools\.js: tool 0 \("a"\): run: expected a function/],
        [{ AGENTD_MCP_SERVERS: '[{"name":"x","transport":"http","url":"not a url"}]' }, /AGENTD_MCP_SERVERS: servers\[0\]\.url/],
      ];
      for (const [env, message] of cases) {
        const outcome = await finished(spawnNode(entryPoint('cli/main'), ['worker'], { ...base, ...env }));
        assert.equal(outcome.code, 2, outcome.stderr);
        assert.match(outcome.stderr, message);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('prefixes tool names by server in the charset and length OpenAI accepts', () => {
    assert.equal(mcpToolName('fs', 'read_text_file'), 'fs__read_text_file');
    assert.equal(mcpToolName('everything', 'get.sum v2'), 'everything__get_sum_v2');
    assert.equal(mcpToolName('s', 'x'.repeat(100)).length, 64);
  });
});

describe('a worker started from its configuration', () => {
  const stack = suiteStack();

  it('loads AGENTD_TOOLS_MODULE and AGENTD_MCP_CONFIG, and a session calls the user tool and an MCP tool', async () => {
    const toolsFile = join(stack.dir, 'my-tools.js');
    await writeFile(toolsFile, toolModule(COUNT_WORDS));
    const mcpFile = join(stack.dir, 'mcp.json');
    const everything = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
    await writeFile(mcpFile, JSON.stringify([{ name: 'everything', transport: 'stdio', command: process.execPath, args: [everything, 'stdio'] }]));
    const simulator = await startSimulator({});
    const env = {
      AGENTD_HOME: stack.dir,
      AGENTD_STORE: stack.storeFile,
      AGENTD_WORKSPACES: stack.workspaceRoot,
      TEMPORAL_ADDRESS: stack.temporal.address,
      OPENAI_BASE_URL: simulator.baseURL,
      AGENTD_MODEL: 'agentd-sim',
      AGENTD_TOOLS_MODULE: toolsFile,
      AGENTD_MCP_CONFIG: mcpFile,
    };
    const logged: string[] = [];
    const running = await startWorkerFromConfig(readConfig(env), (line) => logged.push(line), { workflowBundle: stack.bundle, env });
    const runs = running.run();
    try {
      const task = ['Count.', '[sim call count_words {"text":"three little words"}]', '[sim call everything__echo {"message":"hi"}]'].join('\n');
      const handle = await stack.sessions.start({ task, model: 'agentd-sim' }, { sessionId: 'user-tool' });
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished');
      const outputs = toolResults(await stack.store.list('user-tool')).map((result) => result.output);
      assert.equal(outputs[0], '3 words (counted in user-tool)', 'the user tool ran in the session workspace');
      assert.equal(outputs[1], 'Echo: hi');
      assert.ok(logged.some((line) => line.includes('user tools from') && line.includes('count_words')), logged.join('\n'));
      assert.ok(logged.some((line) => line.includes('MCP servers: everything (stdio)')), logged.join('\n'));
    } finally {
      running.worker.shutdown();
      await runs;
      await simulator.stop();
    }
  });
});
