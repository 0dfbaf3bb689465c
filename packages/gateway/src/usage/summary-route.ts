/**
 * `GET /api/summary[?session=<id>]`: the gateway's running totals since it started, and those of
 * one session signal (usage-tally.ts), for the terminal: a launcher prints its run's figures when
 * the client exits, `toolmask status` the gateway's. Its own row of the route table, placed
 * before the dashboard's `/api/` rows, with their access rules (the tenancy's principal, who must
 * read everything: the figures are everyone's).
 */
import { ACCESS } from '../server/access.js';
import type { Route } from '../server/route-table.js';
import { readsEverything } from '../server/tenancy.js';
import type { UsageSummary, UsageTally } from './usage-tally.js';

export const SUMMARY_PATH = '/api/summary';

/** A session id longer than this is no launcher's (a random UUID): refused rather than hashed. */
const MAX_SESSION_LENGTH = 200;

export function summaryRoute(
  tally: UsageTally,
  gateway: {
    instanceId: string;
    startedAt: number;
    now: () => number;
  },
): Route {
  return {
    path: SUMMARY_PATH,
    methods: ['GET', 'HEAD'],
    access: ACCESS.browser,
    handle: (_request, response, { query, principal }) => {
      const session = query.get('session') ?? undefined;
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
      };
      // The totals are everyone's: for whoever reads everything (the single-user gateway's
      // person, a team's admin).
      if (!readsEverything(principal)) {
        response.writeHead(403, headers).end(
          JSON.stringify({
            error: {
              code: 403,
              message:
                "toolmask gateway: a team gateway's totals are everyone's: the admin key reads them",
            },
          }),
        );
        return;
      }
      if (session !== undefined && (session === '' || session.length > MAX_SESSION_LENGTH)) {
        response.writeHead(400, headers).end(
          JSON.stringify({
            error: { code: 400, message: 'toolmask gateway: expected ?session=<session id>' },
          }),
        );
        return;
      }
      const summary: UsageSummary = {
        instanceId: gateway.instanceId,
        startedAt: gateway.startedAt,
        now: gateway.now(),
        gateway: tally.figures(),
        ...(session !== undefined ? { session: tally.figures(session) } : {}),
      };
      response.writeHead(200, headers).end(JSON.stringify(summary));
    },
  };
}
