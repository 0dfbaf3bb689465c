/** Google's error body (`{ error: { code, message, status } }`), with the gateway's code as `reason`. */
import type { WireErrorCode } from '../../errors.js';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  504: 'DEADLINE_EXCEEDED',
};

export function googleErrorBody(status: number, code: WireErrorCode, message: string): string {
  return JSON.stringify({
    error: {
      code: status,
      message: `toolmask gateway: ${message}`,
      status: STATUS_NAMES[status] ?? 'UNAVAILABLE',
      reason: code,
    },
  });
}
