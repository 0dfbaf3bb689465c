/**
 * What the launcher says when its client has exited: the run's figures (requests, outputs masked,
 * tokens kept out, cache hits; usage-summary.ts), which also brings the dashboard's address back
 * into view after a full-screen UI. A private gateway carried this run alone: its totals are the
 * run's. A reused standalone gateway may carry other clients too: the run's figures are those of
 * its session header, and what else the gateway carried meanwhile is said, not counted.
 */
import type { RunningGateway } from '@toolmask/gateway';
import { createPalette } from '../../render/color.js';
import { dashboardLink, type GatewayAccess } from '../gateway-access.js';
import { fetchUsageSummary, runSummaryLines, type UsageSummary } from './usage-summary.js';

/** The run's gateway: a private one (`running`, stopped with the run) or a reused standalone one. */
export type RunGateway = GatewayAccess & { running?: RunningGateway };

/**
 * The run's figures, once the private gateway has recorded the client's last requests (a record
 * lands as the answer ends, which may be just after the client saw it); bounded, never throws.
 */
export async function runFigures(
  gateway: RunGateway,
  sessionId: string,
): Promise<Awaited<ReturnType<typeof fetchUsageSummary>>> {
  const running = gateway.running?.gateway;
  for (let waited = 0; running && running.inFlight > 0 && waited < 1_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (running) return fetchUsageSummary(gateway, sessionId);
  // A reused gateway: its record of the run's last request lands just after the client has read
  // the answer, and its requests in flight are not ours to see. Asked again until two answers
  // agree on the run's requests (at most about a second).
  let figures = await fetchUsageSummary(gateway, sessionId);
  for (let attempt = 0; attempt < 6 && figures.ok; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const again = await fetchUsageSummary(gateway, sessionId);
    if (!again.ok) return figures;
    const settled = again.summary.session?.requests === figures.summary.session?.requests;
    figures = again;
    if (settled) break;
  }
  return figures;
}

/** How the launcher speaks (launch-client.ts `LaunchOptions`). */
export interface SummaryVoice {
  /** Messages for the person (stderr). */
  say(line: string): void;
  /** Colours in what is said. */
  color?: boolean;
  /** The state folder as the person named it, for the hint after a private gateway's run. */
  stateDirOption?: string;
  /** The client's resume command through toolmask (client-adapter.ts `resumeCommand`). */
  resumeCommand?: (clientSession: string) => string;
}

/** The run's figures and where its dashboard is, said once the client has exited. */
export function sayRunSummary(
  options: SummaryVoice,
  gateway: RunGateway,
  before: UsageSummary | undefined,
  after: Awaited<ReturnType<typeof fetchUsageSummary>> | undefined,
): void {
  const palette = createPalette(options.color === true);
  const say = (line: string) => options.say(`${palette.dim('toolmask:')} ${line}`);
  if (!after?.ok) {
    say(`no figures for this run: ${after?.reason ?? 'the gateway was not asked'}`);
  } else {
    const privateGateway = gateway.running !== undefined;
    for (const line of runSummaryLines(
      {
        ...(before ? { before } : {}),
        // A private gateway carried this run alone: all its figures are the run's.
        after: privateGateway
          ? { ...after.summary, session: after.summary.gateway }
          : after.summary,
        privateGateway,
      },
      palette,
    )) {
      say(line);
    }
  }
  const clientSession = after?.ok ? after.summary.session?.clientSession : undefined;
  // An id as the clients make them (a UUID, `ses_…`): nothing else is printed into a command.
  if (clientSession && /^[\w.:-]{1,200}$/.test(clientSession) && options.resumeCommand) {
    // The client's own hint (`claude --resume <id>`) would skip masking.
    say(`resume through toolmask: ${palette.bold(options.resumeCommand(clientSession))}`);
  }
  if (gateway.running) {
    // Its address died with it; the figures stay in the state folder for a standalone gateway.
    const stateDir = options.stateDirOption ? ` --state-dir ${options.stateDirOption}` : '';
    say(
      `dashboard: this run's gateway stopped with it; \`toolmask gateway${stateDir}\` shows its sessions`,
    );
  } else {
    say(`dashboard ${dashboardLink(gateway)}`);
  }
}
