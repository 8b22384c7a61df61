/** Turns zod issues into one line that names each bad field, for people rather than stack traces. */
import type { z } from 'zod';

export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : '(input)';
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}
