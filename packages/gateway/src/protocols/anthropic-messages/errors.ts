/**
 * Anthropic's error body (`{ type: "error", error: { type, message } }`), with the gateway's code
 * as `error.code` (an extra key clients ignore; scripts may match on it). The error type follows
 * the status as the API's own errors do: a client's retry rules read the status (a 503 `BUSY`
 * with `Retry-After` is retried by the Anthropic SDKs, hence Claude Code).
 */
import type { WireErrorCode } from '../../errors.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
};

export function anthropicErrorBody(status: number, code: WireErrorCode, message: string): string {
  return JSON.stringify({
    type: 'error',
    error: {
      type: ERROR_TYPES[status] ?? 'api_error',
      message: `toolmask gateway: ${message}`,
      code,
    },
  });
}
