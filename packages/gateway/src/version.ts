/** The gateway's version, from its package.json (read once). */
import { readFileSync } from 'node:fs';

export const GATEWAY_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
