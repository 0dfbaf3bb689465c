/**
 * The gateway's errors: the codes it answers a model request with when it answers itself (each
 * protocol writes them in its own error style: protocols/<name>/errors.ts), and its error classes,
 * all `ToolmaskError`s with a stable `code` (core's base class).
 */
import { ToolmaskError } from '@toolmask/core/errors';
import { ToolOutputReadError } from '@toolmask/core/storage';

/**
 * Codes of the errors a model request can get from the gateway itself, never renamed (clients and
 * people's scripts may match on them).
 */
export type WireErrorCode =
  /** That API has no upstream configured (OpenAI without `--openai-upstream`): 502. */
  | 'NO_UPSTREAM'
  /** The path names a Vertex AI location that is not one: 400. */
  | 'BAD_LOCATION'
  /** The path would leave the upstream: 400. */
  | 'BAD_PATH'
  /** The body is larger than `--max-body-mb`: 413. */
  | 'BODY_TOO_LARGE'
  /**
   * The gateway holds as many request bodies as it may at once (`--max-in-flight-mb`): 503 with
   * `Retry-After`, the body not kept.
   */
  | 'BUSY'
  /** The body is not JSON: 400. */
  | 'MALFORMED_JSON'
  /** The upstream could not be reached: 502. */
  | 'UPSTREAM_UNREACHABLE'
  /** A team gateway: the request carries no key (401). */
  | 'NO_KEY'
  /** A team gateway: the admin key on a model request (403). */
  | 'ADMIN_KEY'
  /** A team gateway: a virtual key it does not know, or one revoked (403). */
  | 'UNKNOWN_KEY'
  /** A team gateway: a virtual key it cannot check while its store is down (503). */
  | 'KEYS_UNAVAILABLE'
  /** A team gateway with virtual keys but no provider key to send for them (502). */
  | 'NO_PROVIDER_KEY'
  /** A team gateway: a virtual key on a route whose provider has no team key there (403). */
  | 'WRONG_PROVIDER'
  /** A team gateway: a key given twice, or two credentials, in one request (400). */
  | 'AMBIGUOUS_KEY'
  /**
   * A team gateway: a virtual key on a path that is no model call or model list (403; a person's
   * own provider key may go there).
   */
  | 'NOT_FOR_VIRTUAL_KEYS';

/**
 * Why a gateway or dashboard could not start (the CLI exits 2): its port, a bind beyond loopback
 * without a token, or a state folder it cannot write.
 */
export class GatewayStartError extends ToolmaskError<
  'PORT_IN_USE' | 'NEEDS_AUTH_TOKEN' | 'LISTEN_FAILED' | 'STATE_UNWRITABLE'
> {}

/**
 * A team's store (Redis) did not answer within a command's limit: the request that needed it is
 * answered 503 (or its read-back an error), and the next one tries again
 * (state/redis/redis-liveness.ts).
 */
export class StoreUnavailableError extends ToolmaskError<'STORE_UNAVAILABLE'> {}

/**
 * A team replica's reader (an owner, or the admin) has all their read slots taken
 * (team/read-back-slots.ts): `/mcp` answers the model this error's message, the dashboard's
 * `/api/outputs` answers 429.
 */
export class ReadSlotsFullError extends ToolOutputReadError {}

/**
 * A price table (the built-in `prices/model-prices.json`, or a person's `prices.json` in the state
 * folder) that cannot be read or used: the message names the file and the row or field.
 */
export class PriceTableError extends ToolmaskError<'PRICES_UNREADABLE' | 'PRICES_INVALID'> {}
