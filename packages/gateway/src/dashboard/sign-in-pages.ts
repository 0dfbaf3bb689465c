/**
 * What the dashboard answers a browser that has not said who it is (401): how to get in, which
 * depends on the gateway's tenancy, so whoever wires the gateway picks the page (the single-user
 * one is the default).
 */

/** A single person's gateway: open the printed address with the access secret once. */
export const ACCESS_SECRET_SIGN_IN = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolmask dashboard</title></head>
<body><h1>toolmask dashboard</h1>
<p>The dashboard shows your sessions' outputs, so it asks who you are. Open the address that
<code>toolmask gateway</code> (or <code>toolmask gemini</code>, <code>toolmask qwen</code>) printed,
the one ending in <code>/?token=…</code> (the value is also in the gateway's state folder, in the
file <code>access-secret</code>): the browser then keeps an HttpOnly cookie for it.</p>
</body></html>
`;

/** A team gateway: open it once with your own key. */
export const TEAM_KEY_SIGN_IN = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolmask dashboard</title></head>
<body><h1>toolmask dashboard</h1>
<p>This is a team gateway: it shows each person their own sessions and outputs, so it asks who you
are. Open this address once with your key at the end, <code>/?token=&lt;your key&gt;</code> (the
virtual key <code>toolmask keys create</code> made for you, or the provider key your client
sends): the browser then keeps an HttpOnly cookie that names you, not your key.</p>
</body></html>
`;
