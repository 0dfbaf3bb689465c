/**
 * A second `toolmask gateway` for a state folder that already has one running is refused (exit
 * 1), naming the one that runs. Why refuse rather than warn: the second would not be the one the
 * launchers and `toolmask setup` find (only the first is announced in `gateway.json`), so a person
 * who started it by mistake (`--port 0`, or a service already up) would point nothing at it and
 * wonder where their requests went. On purpose (a second gateway with other upstreams), it takes
 * `--allow-second`, or a state folder of its own (`--state-dir`).
 */
import { findRunningGateway, loadAccessSecret } from '@toolmask/gateway';
import { failure } from '../../cli-error.js';
import { dashboardLink } from '../../launch/gateway-access.js';
import { formatAge } from '../../render/format.js';

export async function refuseIfRunning(stateDir: string, now: number): Promise<void> {
  const running = await findRunningGateway(stateDir);
  if (!running) return;
  // The running gateway made its secret in this folder already; the person may read it.
  const secret = await loadAccessSecret(stateDir).catch(() => undefined);
  const dashboard = secret
    ? dashboardLink({ url: running.url, accessSecret: secret })
    : `${running.url}/`;
  const since =
    typeof running.startedAt === 'number' ? `, up ${formatAge(now - running.startedAt)}` : '';
  throw failure(
    [
      `a gateway is already running for ${stateDir}: ${running.url} (pid ${running.pid}${since}).`,
      `  Use that one: the launchers and toolmask setup find it there; its dashboard: ${dashboard}`,
      `  Or stop it first: kill ${running.pid}`,
      `  Or run a second one on purpose: with its own --state-dir DIR, or with --allow-second to share this folder (launchers and setup keep using the first).`,
    ].join('\n'),
  );
}
