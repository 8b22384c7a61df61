/** Recognises "the prompt is too long" in the words of the common OpenAI-compatible servers. */

const OVERFLOW_CODES = new Set(['context_length_exceeded', 'string_above_max_length']);

const OVERFLOW_MESSAGES = [
  /maximum context length/i, // OpenAI, vLLM
  /context length exceeded/i,
  /context[_ ]window/i, // Ollama, several proxies
  /prompt is too long/i, // Anthropic-compatible proxies
  /too many tokens/i,
  /exceeds? the (?:available )?context size/i, // llama.cpp
  /input (?:is )?too long/i,
];

export function isContextOverflow(code: unknown, message: string): boolean {
  if (typeof code === 'string' && OVERFLOW_CODES.has(code)) return true;
  return OVERFLOW_MESSAGES.some((pattern) => pattern.test(message));
}
