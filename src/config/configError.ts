/** A setting from the environment that cannot be used; the message names the variable and the value. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
