/**
 * The environment the Temporal CLI runs with. The CLI reads TEMPORAL_* variables (address, TLS,
 * API key, profile…) meant for the user's real cluster; letting them through would point our
 * health probes at the wrong server or make them speak TLS to a plaintext dev server.
 */
export function temporalCliEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.toUpperCase().startsWith('TEMPORAL_')) clean[key] = value;
  }
  return clean;
}
