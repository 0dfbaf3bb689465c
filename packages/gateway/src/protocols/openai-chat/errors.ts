/** OpenAI's error body (`{ error: { message, type, code } }`). */
import type { WireErrorCode } from '../../errors.js';

export function openAiErrorBody(status: number, code: WireErrorCode, message: string): string {
  return JSON.stringify({
    error: {
      message: `toolmask gateway: ${message}`,
      type: 'toolmask_gateway_error',
      code,
      status,
    },
  });
}
