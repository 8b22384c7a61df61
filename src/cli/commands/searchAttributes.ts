/** `agentd search-attributes`: which session search attributes a namespace lacks, the commands that add them, or adding them. */
import { missingSearchAttributes, registerCommands, registerSearchAttributes } from '../../client/searchAttributeSetup';
import { connectTemporal } from '../../connection/connect';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse } from '../args';

export const searchAttributesCommand: Command = {
  name: 'search-attributes',
  summary: 'check or register the search attributes sessions are listed by',
  help: `usage: agentd search-attributes [--register] [--print]

Sessions keep their status, step, context fill, cost and model as custom search attributes
(AgentdStatus Keyword, AgentdStep Int, AgentdContextFill Double, AgentdCostUsd Double, AgentdModel
Keyword), which a namespace must have registered before a session starts. 'agentd dev' registers
them on its own server. For another cluster this command checks the namespace and prints the
stock-CLI commands for the missing ones (exit 1 while some are missing); --register adds them
through the operator API instead (needs an admin's access; on Temporal Cloud add them with tcld
or the Cloud UI). --print prints the commands for all of them without connecting.

  --register  add the missing attributes
  --print     print every 'temporal operator search-attribute create' command and exit
${CONNECTION_HELP}`,
  async run(argv) {
    const { values } = parse(argv, { ...CONNECTION_OPTIONS, register: { type: 'boolean' }, print: { type: 'boolean' } });
    const config = configWith(values);
    const namespace = config.connection.namespace;
    if (values.print) {
      console.log(registerCommands(namespace).join('\n'));
      return ExitCode.ok;
    }
    const connection = await connectTemporal(config.connection);
    try {
      if (values.register) {
        const added = await registerSearchAttributes(connection.operatorService, namespace);
        console.error(added.length === 0 ? `namespace ${namespace} has every agentd search attribute` : `registered ${added.map((key) => key.name).join(', ')} in namespace ${namespace}`);
        return ExitCode.ok;
      }
      const missing = await missingSearchAttributes(connection.operatorService, namespace);
      if (missing.length === 0) {
        console.error(`namespace ${namespace} has every agentd search attribute`);
        return ExitCode.ok;
      }
      console.error(`namespace ${namespace} lacks ${missing.map((key) => key.name).join(', ')}; register them with 'agentd search-attributes --register' or:`);
      console.log(registerCommands(namespace, missing).join('\n'));
      return ExitCode.failure;
    } finally {
      await connection.close();
    }
  },
};
